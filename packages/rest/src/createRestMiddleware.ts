import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRestHandlers } from './http/createRestHandlers.js';
import { resolveRestAppOptions, type RestAppOptions } from './RestAppOptions.js';

/** A connect-style handler: fits `app.use()` of express, or a plain node:http server ahead of it. */
export type RestMiddleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

/**
 * The fast path of the REST API: a GET or HEAD of one of its exact routes is answered at once,
 * as `createRestApp` would; anything else goes to `next()`, for `createRestApp` behind it.
 * @example
 * const options = { service, authToken: process.env.VESTA_AUTH_TOKEN };
 * const fast = createRestMiddleware(options);
 * const app = express();
 * app.use('/ids', createRestApp(options)); // what the fast path passes on
 * createServer((req, res) => fast(req, res, () => app(req, res))).listen(8080); // /genid etc. at the root
 */
export function createRestMiddleware(options: RestAppOptions): RestMiddleware {
  const handlers = createRestHandlers(resolveRestAppOptions(options));
  return (req, res, next) => {
    const handler = handlers.exact(req);
    if (handler === undefined) next();
    else void handler(req, res);
  };
}
