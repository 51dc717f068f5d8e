import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { OnLoadResult, Plugin } from 'esbuild';

/** A declaration of its own of `__dirname` or `__filename` (an ES module's, from its URL). */
const DECLARES_DIRNAME = /\b(?:var|let|const|function)\s+__(?:dirname|filename)\b/;

/**
 * What each JavaScript file bundled in this process loads as: its text given its own location,
 * or null when it has none to be given (esbuild then reads it as it is). Files are read once per
 * process: a test file bundles many fixtures from the same `dist/` and `node_modules`, which do
 * not change while it runs, and most of a bundle's cost in Node was reading and rewriting them.
 */
const loaded = new Map<string, Promise<OnLoadResult | null>>();

async function load(path: string): Promise<OnLoadResult | null> {
  const text = await readFile(path, 'utf8');
  // A call only: @nestjs/terminus names `import.meta.resolve` in a comment.
  if (/import\.meta\.resolve\s*\(/.test(text)) {
    throw new Error(`${path} reads import.meta beyond its url: teach ownLocation about it`);
  }
  let own = text
    .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href))
    .replaceAll('import.meta.dirname', JSON.stringify(dirname(path)))
    .replaceAll('import.meta.filename', JSON.stringify(path));
  if (/\b__(?:dirname|filename)\b/.test(own) && !DECLARES_DIRNAME.test(own)) {
    const names = `var __dirname = ${JSON.stringify(dirname(path))}, __filename = ${JSON.stringify(path)};`;
    // On the first line, so that the file's line numbers stay as they were.
    own = own.startsWith('#!') ? own.replace('\n', `\n${names} `) : `${names} ${own}`;
  }
  return own === text ? null : { contents: own, loader: 'js', resolveDir: dirname(path) };
}

/**
 * An esbuild plugin that gives each bundled JavaScript module the location of its own file:
 * `import.meta.url` becomes the URL of the file (in a package's `dist/`, or in `node_modules`),
 * `import.meta.dirname` and `import.meta.filename` its folder and path,
 * and a CommonJS module that reads `__dirname` or `__filename` gets its own (esbuild wraps each
 * in a function, which scopes them). So what a module finds beside it is what it finds
 * unbundled: the cli's and metrics' `package.json`, the REST page's assets, gRPC's and etcd's
 * proto files, the `swagger-ui-dist` that `createRequire` resolves, pino's worker files.
 * A bare import resolves from the importer's own folder too (esbuild's resolver, as Node's),
 * which pnpm's strict layout needs. Used by `bundleVestaCli` and `compiledFixture`.
 */
export const ownLocation: Plugin = {
  name: 'own-location',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?js$/ }, async ({ path }) => {
      let result = loaded.get(path);
      if (result === undefined) {
        result = load(path);
        loaded.set(path, result);
        result.catch(() => loaded.delete(path));
      }
      return (await result) ?? undefined;
    });
  },
};
