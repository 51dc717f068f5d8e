import type { HttpHandler, RestHandlers } from './createRestHandlers.js';
import { exactRoute } from './exactRoute.js';

/**
 * The request listener of the standalone server: a GET or HEAD whose path is exactly one of
 * the API's routes goes straight to that route's handler (the very function the express app
 * runs for it), skipping express's router and its per-request re-prototyping of req/res;
 * every other request (unknown or unusual paths, other methods) goes to `fallback`, the
 * express app built over the same handlers. Answers are the same either way.
 */
export function createPreRouter(handlers: RestHandlers, fallback: HttpHandler): HttpHandler {
  const routes = handlers.routes;
  return (req, res) => (exactRoute(routes, req) ?? fallback)(req, res);
}
