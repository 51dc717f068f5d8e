import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { RestHandlers } from './createRestHandlers.js';

/**
 * The express app over the REST handlers: each route's GET (and so HEAD), a 405 for its other
 * methods, a 404 for any other path, and coded errors for what express itself raises.
 * No etag, no x-powered-by, no query parser: the handlers parse their queries strictly.
 */
export function buildExpressApp(handlers: RestHandlers): Express {
  const app = express();
  app.set('etag', false);
  app.set('x-powered-by', false);
  app.set('query parser', false);
  for (const [path, handler] of handlers.routes) {
    // A path parameter `{key}` is express's `:key`.
    const pattern = path.replace(/\{(\w+)\}/g, ':$1');
    app.get(pattern, handler);
    const notAllowed = handlers.methodNotAllowed.get(path);
    if (notAllowed !== undefined) app.all(pattern, notAllowed);
  }
  app.use((req: Request, res: Response) => handlers.notFound(res, req.path));
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) =>
    handlers.failed(res, error),
  );
  return app;
}
