import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';

/**
 * Node's options for a {@link compiledFixture}: the workspace's packages resolve to their
 * compiled `dist/` (the integration project's global setup builds it), as installed ones do.
 */
export const FIXTURE_EXEC_ARGV: readonly string[] = ['--conditions=vesta-dist'];

/** A package's source file, split at its `src/`: the folder before it, and the path after. */
const PACKAGE_SOURCE = /^(.*[/\\]packages[/\\][^/\\]+)[/\\]src[/\\](.+)\.ts$/;

/** Source files that `tsc -b` does not compile into `dist/` (tsconfig.build.json's exclude). */
const NOT_IN_DIST = /^(testing|__fixtures__)[/\\]|\.spec$/;

/**
 * The compiled twin in `dist/` of a package's source file; undefined for a file `tsc -b` does not
 * compile (a test helper, a fixture). A source without its twin fails the compile: bundling it
 * instead would load a second copy of the module beside the package's own (two VestaError
 * classes), and a twin without its source would run code that no longer exists.
 */
function distOf(file: string): string | undefined {
  const parts = PACKAGE_SOURCE.exec(file);
  if (parts === null) return undefined;
  const [, pkg = '', rest = ''] = parts;
  if (NOT_IN_DIST.test(rest)) return undefined;
  const dist = `${pkg}${sep}dist${sep}${rest}.js`;
  if (!existsSync(file)) throw new Error(`${file} does not exist (a stale import?)`);
  if (!existsSync(dist)) {
    throw new Error(`${dist} is missing: build the packages first (npm run build)`);
  }
  return dist;
}

/**
 * What a bundle leaves to Node at run time: every package (the workspace's under
 * `--conditions=vesta-dist`, so the fixture runs against their compiled code, one copy of each
 * module), and any package source file a relative import reaches (its twin in `dist/`, for the
 * same reason). Only what `dist/` lacks is bundled: the fixture, the package's test helpers, and
 * the test kit, which is never compiled.
 */
const leaveToNode: Plugin = {
  name: 'leave-to-node',
  setup(compile) {
    compile.onResolve({ filter: /^[^./]/ }, ({ path }) =>
      path === '@vesta/testkit' || path.startsWith('@vesta/testkit/')
        ? undefined
        : { path, external: true },
    );
    compile.onResolve({ filter: /^\.\.?\// }, ({ path, resolveDir }) => {
      const dist = distOf(resolve(resolveDir, path.replace(/\.js$/, '.ts')));
      return dist === undefined ? undefined : { path: dist, external: true };
    });
  },
};

/** Where the bundle of `source` goes: beside it (`run.ts` -> `run.fixture.mjs`; gitignored). */
function bundlePath(source: string): string {
  return `${source.replace(/\.[cm]?[jt]s$/, '')}.fixture.mjs`;
}

async function compile(source: string): Promise<string> {
  const out = bundlePath(source);
  // Loaded on first use: most files that import the test kit never compile a fixture.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [source],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    plugins: [leaveToNode],
  });
  const text = result.outputFiles[0]?.contents;
  if (text === undefined) throw new Error(`esbuild wrote nothing for ${source}`);
  // Three test files may compile the same fixture at once: each renames a whole file in place.
  const temp = `${out}.${randomUUID()}.tmp`;
  try {
    await writeFile(temp, text);
    await rename(temp, out);
  } finally {
    await rm(temp, { force: true });
  }
  return out;
}

const compiled = new Map<string, Promise<string>>();

/**
 * Test helper: a child-process fixture written in TypeScript, bundled for plain Node (once per
 * test file), and the path of the bundle; run it as `node ...FIXTURE_EXEC_ARGV <path>`. Costs a
 * few milliseconds where `node --import tsx` costs about 1.5 s of CPU at each start, and the
 * spawned process is still the one running the fixture (a SIGKILL reaches it).
 *
 * The bundle sits beside the source, so `import.meta.url` and bare imports resolve as they did
 * from the source. The workspace's packages are not bundled but loaded from their `dist/`.
 */
export function compiledFixture(source: string | URL): Promise<string> {
  const path =
    source instanceof URL || source.startsWith('file:') ? fileURLToPath(source) : resolve(source);
  let done = compiled.get(path);
  if (done === undefined) {
    done = compile(path);
    compiled.set(path, done);
    done.catch(() => compiled.delete(path));
  }
  return done;
}
