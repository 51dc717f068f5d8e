import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { HttpHandler, RestHandlers } from './createRestHandlers.js';

/** The express app over the REST handlers: each route's GET and HEAD, coded 405s, 404s and errors. */
export function buildExpressApp(handlers: RestHandlers): Express {
  const app = express();
  app.set('etag', false);
  app.set('x-powered-by', false);
  app.set('query parser', false);
  // Mounted at /ids, the page at /ids would miss its relative links: 308 to ./ids/ first.
  app.get('/', (req: Request, res: Response, next: NextFunction) => {
    const at = req.originalUrl.indexOf('?');
    const path = at < 0 ? req.originalUrl : req.originalUrl.slice(0, at);
    if (req.baseUrl === '' || path.endsWith('/')) return next();
    const last = path.slice(path.lastIndexOf('/') + 1);
    res.writeHead(308, { location: `./${last}/${at < 0 ? '' : req.originalUrl.slice(at)}` });
    res.end();
  });
  for (const [path, handler] of handlers.routes) {
    // `{key}` is express's optional `{:key}`: an empty key reaches its route's coded 400.
    const pattern = path.replace(/\{(\w+)\}/g, '{:$1}');
    // express matches /genid/ and /GENID too; the page's paths only exactly.
    const exactly = (answer: HttpHandler) =>
      handlers.pages.has(path)
        ? (req: Request, res: Response, next: NextFunction) =>
            req.path === path ? answer(req, res) : next()
        : answer;
    app.get(pattern, exactly(handler));
    const notAllowed = handlers.methodNotAllowed.get(path);
    if (notAllowed !== undefined) app.all(pattern, exactly(notAllowed));
  }
  app.use((req: Request, res: Response) => handlers.notFound(res, req.path));
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) =>
    handlers.failed(res, error),
  );
  return app;
}
