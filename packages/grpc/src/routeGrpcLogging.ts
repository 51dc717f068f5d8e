import { format } from 'node:util';
import { setLogger } from '@grpc/grpc-js';
import type { Logger } from '@vesta/core';

/** The fields of every line grpc-js writes through {@link routeGrpcLogging}. */
const FIELDS = { source: 'grpc-js' } as const;

/**
 * Sends grpc-js's own log lines to `logger` (errors as errors, info as info, debug when the
 * logger has it), under `{ source: 'grpc-js' }`, instead of grpc-js's `E `/`I `/`D ` lines on
 * stderr: a port it cannot bind, for one, which `startGrpcServer` answers LISTEN_FAILED too.
 * grpc-js keeps one logger for the whole process, so a program calls this once where it starts
 * (the CLI does), a library never. `GRPC_VERBOSITY` still picks which lines grpc-js writes.
 *
 * @example
 * routeGrpcLogging(logger);
 * const grpc = await startGrpcServer({ service: ids, port: 7071, logger });
 */
export function routeGrpcLogging(logger: Logger): void {
  setLogger({
    error: (message?: unknown, ...rest: unknown[]) => {
      logger.error(FIELDS, format(message, ...rest));
    },
    info: (message?: unknown, ...rest: unknown[]) => {
      logger.info(FIELDS, format(message, ...rest));
    },
    debug: (message?: unknown, ...rest: unknown[]) => {
      logger.debug?.(FIELDS, format(message, ...rest));
    },
  });
}
