import { readFile } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';

/** Marks a resolution {@link cjsDynamicImports} asked esbuild for itself. */
const RESOLVING = Symbol('resolving');

/** The namespace of the modules {@link cjsDynamicImports} writes. */
const NAMESPACE = 'cjs-namespace';

/** The `type` of the package.json nearest above `folder` ('commonjs' when none says). */
async function packageType(folder: string): Promise<string> {
  for (let dir = folder; ; dir = dirname(dir)) {
    const text = await readFile(join(dir, 'package.json'), 'utf8').catch(() => undefined);
    if (text !== undefined) return (JSON.parse(text) as { type?: string }).type ?? 'commonjs';
    if (dirname(dir) === dir) return 'commonjs';
  }
}

/** Whether Node loads `file` as a CommonJS module. */
async function isCommonJs(file: string): Promise<boolean> {
  const ext = extname(file);
  if (ext === '.cjs') return true;
  if (ext !== '.js') return false;
  return (await packageType(dirname(file))) === 'commonjs';
}

/**
 * The module that stands for the CommonJS `file` as Node's `import()` gives it: its
 * `module.exports` as `default`, and as named exports the names Node finds in it (Node's own
 * loader asked here, once per bundle), each its property of `module.exports`.
 */
async function namespaceOf(file: string): Promise<string> {
  const names = Object.keys((await import(pathToFileURL(file).href)) as object).filter(
    (name) => name !== 'default' && /^[A-Za-z_$][\w$]*$/.test(name),
  );
  const path = JSON.stringify(file);
  const named = names.map((name) => `export const ${name} = cjs.${name};`).join('\n');
  return `const cjs = require(${path});\nexport default cjs;\n${named}\n`;
}

/**
 * An esbuild plugin for the packages a bundle imports lazily, `import('ioredis')`, used by the
 * CLI's bundle and the fixtures'. One esbuild cannot find (an optional peer not installed) is
 * left to Node, to fail when the code reaches for it, as unbundled, not when the bundle is built.
 * One whose entry is CommonJS comes back as the namespace Node gives it, its `default` and its
 * named exports (`Redis` beside `default`), where a bundle split into chunks (`splitting`) would
 * hold the `default` alone. It stays bundled, once (a static import of it elsewhere shares it),
 * and is evaluated only when imported; an ES module imported lazily is bundled as before.
 */
export const cjsDynamicImports: Plugin = {
  name: 'cjs-dynamic-imports',
  setup(build) {
    build.onResolve(
      { filter: /^[^./]/ },
      async ({ path, kind, importer, resolveDir, pluginData }) => {
        if (kind !== 'dynamic-import' || pluginData === RESOLVING) return undefined;
        const found = await build.resolve(path, {
          kind,
          importer,
          resolveDir,
          pluginData: RESOLVING,
        });
        // Not found (an optional peer not installed): Node's to fail on, when the code reaches it.
        if (found.errors.length > 0) return { path, external: true };
        if (found.external || !(await isCommonJs(found.path))) return undefined;
        return { path: found.path, namespace: NAMESPACE };
      },
    );
    build.onLoad({ filter: /.*/, namespace: NAMESPACE }, async ({ path }) => ({
      contents: await namespaceOf(path),
      loader: 'js',
      resolveDir: dirname(path),
    }));
  },
};
