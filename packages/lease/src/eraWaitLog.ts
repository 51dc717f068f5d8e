import type { Logger } from '@vesta/core';
import type { LeaseEraHooks } from './enterLeaseEra.js';

/**
 * The one log line of an era wait, the same for every coordinator: when a start finds no open
 * allocation era (a new store, or one that lost its data) it says so before it waits, with why
 * and for how long, so that a first start on a new store does not look hung. `fields` say where
 * (the prefix, root or table).
 */
export function eraWaitLog(
  logger: Logger,
  coordinator: string,
  fields: Record<string, unknown>,
): LeaseEraHooks {
  return {
    onWait: (era, waitMs) =>
      logger.warn(
        { ...fields, era, waitMs },
        `${coordinator} holds no open allocation era (a new store, or it lost its data): no machine id is handed out for ${Math.ceil(waitMs / 1000)} s, until every holder of ids of lost data has fenced itself`,
      ),
  };
}
