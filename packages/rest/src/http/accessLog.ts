import type { ServerResponse } from 'node:http';
import type { Logger } from '@vesta/core';

/**
 * The access log: one debug line per answered request (method, route, status, duration, ids
 * issued), written only when the logger has debug lines and they are on (pino's
 * `isLevelEnabled('debug')`, e.g. `vesta rest --log-level debug`); off by default.
 */
export function accessLog(
  logger: Logger,
  res: ServerResponse,
  route: string,
  started: number,
  ids = 0,
): void {
  if (logger.debug === undefined || logger.isLevelEnabled?.('debug') === false) return;
  logger.debug(
    {
      method: res.req?.method,
      route,
      status: res.statusCode,
      ms: Math.round((performance.now() - started) * 1000) / 1000,
      ids,
    },
    'request',
  );
}
