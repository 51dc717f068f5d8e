import type { IncomingMessage } from 'node:http';
import type { HttpHandler } from './createRestHandlers.js';

/** The handler of a GET or HEAD whose path is exactly one of `routes`' (query aside), if any. */
export function exactRoute(
  routes: ReadonlyMap<string, HttpHandler>,
  req: IncomingMessage,
): HttpHandler | undefined {
  const method = req.method;
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  const url = req.url ?? '';
  const at = url.indexOf('?');
  return routes.get(at < 0 ? url : url.slice(0, at));
}
