import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';

/** A declaration of its own of `__dirname` or `__filename` (an ES module's, from its URL). */
const DECLARES_DIRNAME = /\b(?:var|let|const|function)\s+__(?:dirname|filename)\b/;

/**
 * An esbuild plugin that gives each bundled module the location of its own file:
 * `import.meta.url` becomes the URL of the file (in a package's `dist/`, or in `node_modules`),
 * and a CommonJS module that reads `__dirname` or `__filename` gets its own (esbuild wraps each
 * in a function, which scopes them). So what a module finds beside it is what it finds
 * unbundled: the cli's and metrics' `package.json`, the REST page's assets, gRPC's and etcd's
 * proto files, the `swagger-ui-dist` that `createRequire` resolves, pino's worker files.
 * Used by `bundleVestaCli`.
 */
export const ownLocation: Plugin = {
  name: 'own-location',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?js$/ }, async ({ path }) => {
      let text = await readFile(path, 'utf8');
      if (/import\.meta\.(?:dirname|filename|resolve)\b/.test(text)) {
        throw new Error(`${path} reads import.meta beyond its url: teach ownLocation about it`);
      }
      text = text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href));
      if (/\b__(?:dirname|filename)\b/.test(text) && !DECLARES_DIRNAME.test(text)) {
        const own = `var __dirname = ${JSON.stringify(dirname(path))}, __filename = ${JSON.stringify(path)};`;
        // On the first line, so that the file's line numbers stay as they were.
        text = text.startsWith('#!') ? text.replace('\n', `\n${own} `) : `${own} ${text}`;
      }
      return { contents: text, loader: 'js', resolveDir: dirname(path) };
    });
  },
};
