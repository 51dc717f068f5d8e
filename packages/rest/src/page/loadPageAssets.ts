import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PAGE_ROUTES } from './pageRoutes.js';

/** A file of the page, read once, with the headers it is served with. */
export interface PageAsset {
  readonly body: Buffer;
  /** Pre-built response headers, as a flat `[name, value, ...]` list. */
  readonly headers: string[];
}

/**
 * No script but the page's own files (none inline, no eval), no style but its own sheets, no
 * fetch but to this server, no framing, no plugins, no base or form tricks. swagger-ui renders
 * within it too: it sets styles through the CSSOM, which `style-src 'self'` allows.
 */
const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** `page/` of this package: beside `src/` in the workspace, beside `dist/` once packed. */
const PAGE_DIR = fileURLToPath(new URL('../../page/', import.meta.url));

let loaded: ReadonlyMap<string, PageAsset> | undefined;

/**
 * swagger-ui's files: in `vendor/swagger-ui` of an installed package (copied there when it is
 * packed, so that an install brings no swagger-ui-dist and its install-time telemetry), else
 * from the swagger-ui-dist dev dependency in the workspace.
 */
function swaggerUiDir(): string {
  const vendored = fileURLToPath(new URL('../../vendor/swagger-ui/', import.meta.url));
  if (existsSync(join(vendored, 'swagger-ui-bundle.js'))) return vendored;
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/**
 * The page's files by route path, read from disk on the first call (a missing file throws
 * then, at the app's creation, not at a request) and shared by every app after it.
 */
export function loadPageAssets(): ReadonlyMap<string, PageAsset> {
  if (loaded !== undefined) return loaded;
  const swaggerUi = swaggerUiDir();
  const assets = new Map<string, PageAsset>();
  for (const route of PAGE_ROUTES) {
    const body = readFileSync(join(route.from === 'page' ? PAGE_DIR : swaggerUi, route.file));
    const headers = [
      'content-type',
      route.contentType,
      'cache-control',
      'no-cache',
      'x-content-type-options',
      'nosniff',
      'referrer-policy',
      'no-referrer',
    ];
    if (route.contentType.startsWith('text/html')) {
      headers.push('content-security-policy', PAGE_CSP, 'x-frame-options', 'DENY');
    }
    assets.set(route.path, Object.freeze({ body, headers }));
  }
  loaded = assets;
  return assets;
}
