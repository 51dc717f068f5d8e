import type { Express } from 'express';
import { buildExpressApp } from './http/buildExpressApp.js';
import { createRestHandlers } from './http/createRestHandlers.js';
import { resolveRestAppOptions, type RestAppOptions } from './RestAppOptions.js';

/**
 * The REST API as an express app, to mount in an existing server. Errors are
 * `{"error":{"code","message"}}` with the status of the code's row in `ERROR_CODES`.
 * @example
 * const service = await createRestIdService({ machineId: 1000 });
 * const app = createRestApp({ service, authToken: process.env.VESTA_AUTH_TOKEN });
 * outer.use('/ids', app);
 */
export function createRestApp(options: RestAppOptions): Express {
  return buildExpressApp(createRestHandlers(resolveRestAppOptions(options)));
}
