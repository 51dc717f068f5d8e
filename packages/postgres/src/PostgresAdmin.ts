import {
  allocationOf,
  defineAdminOptions,
  LeaseAdmin,
  type AdminOptionsOf,
  type AdminStore,
  type LeaseAllocation,
} from '@vesta/lease';
import type pg from 'pg';
import { postgresMachineIdOptions, withPostgresUrlOptions } from './PostgresMachineIdOptions.js';
import type { PostgresTarget } from './pg/postgresTarget.js';
import { openPool, reachPrimary } from './pg/openPool.js';
import { PgJournal } from './pg/PgJournal.js';
import { PgTable, type IdRow } from './pg/PgTable.js';

/** The declaration of {@link PostgresAdminOptions}: the provider's connection, a deadline. */
const postgresAdminOptions = defineAdminOptions('PostgreSQL', postgresMachineIdOptions.schema, [
  'url',
  'schema',
  'table',
]);

/** Options of {@link PostgresAdmin}: the provider's `url`, `schema` and `table`, and `timeoutMs`. */
export type PostgresAdminOptions = AdminOptionsOf<typeof postgresAdminOptions>;

/**
 * One machine id's allocation, as {@link PostgresAdmin.list} reports it: `alive` when a lease
 * holds it (a holder and an expiry still ahead), `ageMs` since the row was last written, both
 * on the database's clock.
 */
export type PostgresMachineIdAllocation = LeaseAllocation;

/** A row's allocation (age 0 unless given). */
function allocationOfRow(row: IdRow, ageMs = 0): PostgresMachineIdAllocation {
  return allocationOf(row.machineId, row, { alive: row.live, ageMs });
}

/** PostgreSQL as its admin reaches it: a pool of its own per call, the allocation table. */
function postgresAdminStore(
  o: ReturnType<typeof postgresAdminOptions.resolve>,
  target: PostgresTarget,
): AdminStore<PostgresMachineIdAllocation, pg.Pool> {
  const table = new PgTable(o.schema, o.table);
  const journal = new PgJournal(table);
  return {
    store: 'PostgreSQL',
    where: `in ${table.schema}.${table.table}`,
    namespace: `PostgreSQL table ${table.schema}.${table.table}`,
    open: () =>
      openPool({ target, connectTimeoutMs: o.timeoutMs, operationTimeoutMs: o.timeoutMs }),
    connect: (db) => reachPrimary(db, target),
    close: (db) => db.end().catch(() => undefined),
    // None when the table does not exist.
    list: async (db) =>
      (await table.exists(db))
        ? (await table.readAll(db)).map((row) => allocationOfRow(row, row.idleMs))
        : [],
    read: async (db, machineId) => {
      const row = (await table.exists(db))
        ? (await table.readRows(db, machineId, machineId, '')).find(
            (r) => r.machineId === machineId,
          )
        : undefined;
      if (row === undefined) return undefined;
      return {
        allocation: allocationOfRow(row),
        // Owner, holder and expiry cleared: a live holder finds its row taken at its next renewal.
        release: async () =>
          (await table.adminRelease(db, machineId, row.version)) ? 'released' : 'raced',
      };
    },
    // Creates the table when missing, then the era open in one transaction if it holds no row.
    init: async (db, era, limit) => {
      await table.ensure(db);
      return table.initEra(db, era, limit);
    },
    history: (db) => journal.read(db),
  };
}

/**
 * Operators' view of a fleet's allocations in PostgreSQL: list them (`alive` while a holder's
 * expiry is ahead, `ageMs` since the row was last written, both on the database's clock), release
 * an id by hand, declare a table new (see {@link LeaseAdmin}). Validates the options
 * (INVALID_OPTIONS); connects on each call.
 */
export class PostgresAdmin extends LeaseAdmin<PostgresMachineIdAllocation, pg.Pool> {
  /** The URL's query may name the schema and table; the provider's other options in it are ignored. */
  constructor(options: PostgresAdminOptions) {
    const { target, ...given } = withPostgresUrlOptions(options, ['schema', 'table']);
    const o = postgresAdminOptions.resolve(given);
    // The schema refused a URL that does not read before this.
    if (target === undefined)
      throw new TypeError('unreachable: a PostgreSQL URL that does not read');
    super(postgresAdminStore(o, target));
  }
}
