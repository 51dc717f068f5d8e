import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HTML = 'text/html; charset=utf-8';
const TYPES: Record<string, string> = {
  html: HTML,
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};
/** `from`: this package's `page/` folder, or the `swagger-ui-dist` package. */
const route = (path: string, file: string, from: 'page' | 'swagger-ui' = 'page') => {
  const contentType = TYPES[file.slice(file.lastIndexOf('.') + 1)] as string;
  return { path, from, file, contentType };
};

/** The id page (`/`) and the OpenAPI docs (`/docs`) with their assets, linked relatively; served without a token. */
export const PAGE_ROUTES = [
  route('/', 'index.html'),
  route('/docs', 'docs.html'),
  ...['page.js', 'page.css', 'docs.js'].map((file) => route(`/assets/${file}`, file)),
  ...['swagger-ui-bundle.js', 'swagger-ui.css'].map((file) =>
    route(`/assets/${file}`, file, 'swagger-ui'),
  ),
];

/** Only the page's own scripts, sheets and server; swagger-ui's CSSOM styles pass `style-src 'self'`. */
const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** A file of the page, read once, with its headers (a flat `[name, value, ...]` list). */
type PageAsset = { readonly body: Buffer; readonly headers: string[] };
let loaded: ReadonlyMap<string, PageAsset> | undefined;

/** swagger-ui's files: vendored when packed (no swagger-ui-dist install), else the dev dependency. */
function swaggerUiDir(): string {
  const vendored = fileURLToPath(new URL('../../vendor/swagger-ui/', import.meta.url));
  if (existsSync(join(vendored, 'swagger-ui-bundle.js'))) return vendored;
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/** The page's files by route path, read once on the first call (at an app's creation). */
export function loadPageAssets(): ReadonlyMap<string, PageAsset> {
  if (loaded !== undefined) return loaded;
  const dirs = {
    page: fileURLToPath(new URL('../../page/', import.meta.url)),
    'swagger-ui': swaggerUiDir(),
  };
  const assets = new Map<string, PageAsset>();
  for (const route of PAGE_ROUTES) {
    const headers = [
      ...['content-type', route.contentType, 'cache-control', 'no-cache'],
      ...['x-content-type-options', 'nosniff', 'referrer-policy', 'no-referrer'],
    ];
    if (route.contentType === HTML) {
      headers.push('content-security-policy', PAGE_CSP, 'x-frame-options', 'DENY');
    }
    const body = readFileSync(join(dirs[route.from], route.file));
    assets.set(route.path, Object.freeze({ body, headers }));
  }
  loaded = assets;
  return assets;
}
