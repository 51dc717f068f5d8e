import type { Express } from 'express';
import { buildExpressApp } from './http/buildExpressApp.js';
import { createRestHandlers } from './http/createRestHandlers.js';
import { resolveRestAppOptions, type RestAppOptions } from './RestAppOptions.js';

/**
 * The REST API of the id service as an express app, to mount in an existing express server
 * (`startRestServer` serves the same handlers, with its hot routes dispatched ahead of
 * express). Every id is a decimal string; errors are `{"error":{"code","message"}}` with the
 * status of the code's row in `ERROR_CODES`.
 *
 * Tuned for throughput within express: no etag, no x-powered-by, no query parser (queries
 * are parsed strictly by hand, only where a route takes parameters), responses written with
 * one `writeHead` of pre-built headers and one `end` of a pre-built JSON string, auth,
 * validation and metrics done inside each route's one handler.
 *
 * @example
 * const service = await createRestIdService({ machineId: 1000 });
 * const app = createRestApp({ service, authToken: process.env.VESTA_AUTH_TOKEN });
 * outer.use('/ids', app);
 */
export function createRestApp(options: RestAppOptions): Express {
  return buildExpressApp(createRestHandlers(resolveRestAppOptions(options)));
}
