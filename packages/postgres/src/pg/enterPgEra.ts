import { randomUUID } from 'node:crypto';
import type { Logger, TimeSource } from '@vesta/core';
import { EraWait, sleepOn } from '@vesta/core/kit';
import type pg from 'pg';
import type { PgTable } from './PgTable.js';

/**
 * Returns the table's allocation era once it is open. A table without an era row is new, or lost
 * its rows (truncated, dropped, restored) while instances may still hold ids of the lost rows:
 * the era is created closed, and nobody takes an id until `waitMs` has passed on this start's
 * monotonic clock since it first saw the era missing or closed (see `EraWait`), by when every
 * holder of the lost rows has fenced itself; then whoever gets there first opens it.
 */
export async function enterPgEra(
  db: pg.Pool,
  table: PgTable,
  waitMs: number,
  logger: Logger,
  time: TimeSource,
): Promise<string> {
  const wait = new EraWait(time, waitMs);
  for (;;) {
    const seenAt = wait.seenAt();
    const found = await table.readEra(db);
    if (found === undefined) {
      wait.observe(undefined, seenAt);
      const era = randomUUID();
      if (await table.createEra(db, era)) {
        logger.warn(
          { table: `${table.schema}.${table.table}`, era, waitMs },
          'no allocation era in the PostgreSQL table (a new table, or its rows were lost): no machine id is handed out until every holder of the lost rows is fenced',
        );
      }
      continue;
    }
    if (found.open) return found.era;
    const remainingMs = wait.observe(found.era, seenAt);
    if (remainingMs > 0) {
      await sleepOn(time, remainingMs);
      continue;
    }
    await table.openEra(db, found.era);
  }
}
