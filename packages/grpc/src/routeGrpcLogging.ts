import { format } from 'node:util';
import { setLogger } from '@grpc/grpc-js';
import type { Logger } from '@vesta/core';

/**
 * Sends grpc-js's own log lines to `logger` instead of stderr; grpc-js keeps one logger per
 * process, so a program calls this once where it starts, a library never.
 * @example
 * routeGrpcLogging(logger);
 * const grpc = await startGrpcServer({ service: ids, port: 7071, logger });
 */
export function routeGrpcLogging(logger: Logger): void {
  const line =
    (level: 'error' | 'info' | 'debug') =>
    (message?: unknown, ...rest: unknown[]): void => {
      logger[level]?.({ source: 'grpc-js' }, format(message, ...rest));
    };
  setLogger({ error: line('error'), info: line('info'), debug: line('debug') });
}
