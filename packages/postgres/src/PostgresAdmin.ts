import {
  defineAdminOptions,
  type CoordinatorAdminOptions,
  withAdminSession,
  releaseAllocation,
  initLeaseStore,
  type LeaseAllocation,
  type LeaseStoreInit,
} from '@vesta/lease';
import type pg from 'pg';
import {
  postgresMachineIdOptions,
  type PostgresMachineIdOptions,
} from './PostgresMachineIdOptions.js';
import { openPool } from './pg/openPool.js';
import { PgTable, type IdRow } from './pg/PgTable.js';

/** The provider's options an admin connects with (their declarations and TSDoc are the provider's). */
const CONNECTION = { url: true, schema: true, table: true } as const;

/** The declaration of {@link PostgresAdminOptions}: the provider's connection, a deadline. */
const postgresAdminOptions = defineAdminOptions(
  'PostgreSQL',
  postgresMachineIdOptions.schema.pick(CONNECTION).shape,
);

/** Options of {@link PostgresAdmin}: the provider's connection options and `timeoutMs`. */
export type PostgresAdminOptions = Pick<PostgresMachineIdOptions, keyof typeof CONNECTION> &
  CoordinatorAdminOptions;

/**
 * One machine id's allocation, as {@link PostgresAdmin.list} reports it: `alive` when a lease
 * holds it (a holder and an expiry still ahead), `ageMs` since the row was last written, both
 * on the database's clock.
 */
export type PostgresMachineIdAllocation = LeaseAllocation;

/** How many rows a refused init reports (it names five, then "and more"). */
const INIT_FOUND_LIMIT = 6;

/** A row's allocation (age 0 unless given). */
function allocationOf(row: IdRow, ageMs = 0): PostgresMachineIdAllocation {
  const { machineId, owner, live, markMs, host, pid } = row;
  return {
    machineId,
    owner,
    alive: live,
    markMs,
    ageMs,
    host: host ?? undefined,
    pid: pid ?? undefined,
  };
}

/**
 * Operators' view of a fleet's allocations in PostgreSQL: list them, release an id by hand,
 * declare a table new.
 */
export class PostgresAdmin {
  readonly #url: string;
  readonly #table: PgTable;
  readonly #timeoutMs: number;

  /** Validates the options (INVALID_OPTIONS); connects on each call. */
  constructor(options: PostgresAdminOptions) {
    const o = postgresAdminOptions.resolve(options);
    this.#url = o.url;
    this.#table = new PgTable(o.schema, o.table);
    this.#timeoutMs = o.timeoutMs;
  }

  /** Every allocated id of the table, in id order (none when the table does not exist). */
  async list(): Promise<PostgresMachineIdAllocation[]> {
    return this.#with(async (db) => {
      if (!(await this.#table.exists(db))) return [];
      return (await this.#table.readAll(db)).map((row) => allocationOf(row, row.idleMs));
    });
  }

  /**
   * Releases an id: owner, holder and expiry cleared (its time mark stays, so whoever takes it
   * next issues after it). A live id is refused with INVALID_ARGUMENT unless `force`: its holder
   * then finds its row taken at its next renewal and stops for good.
   */
  async release(
    machineId: number,
    options: { force?: boolean } = {},
  ): Promise<PostgresMachineIdAllocation> {
    const table = this.#table;
    return this.#with((db) =>
      releaseAllocation(machineId, options, `in ${table.schema}.${table.table}`, async () => {
        const row = (await table.exists(db))
          ? (await table.readRows(db, machineId, machineId, '')).find(
              (r) => r.machineId === machineId,
            )
          : undefined;
        if (row === undefined) return undefined;
        return {
          allocation: allocationOf(row),
          release: async () =>
            (await table.adminRelease(db, machineId, row.version)) ? 'released' : 'raced',
        };
      }),
    );
  }

  /**
   * Declares the table new (`vesta machine-ids init`): creates it when missing and its allocation
   * era OPEN, so the first start takes an id at once instead of waiting out `eraWaitMs`; in one
   * transaction, and only when the table holds no row at all. Only for a table known to be new:
   * one truncated, dropped or restored empty looks just as empty, while holders of the lost rows
   * may still be issuing (the era wait covers them). Errors: COORDINATOR_NOT_NEW naming the rows
   * found.
   */
  async init(): Promise<LeaseStoreInit> {
    const table = this.#table;
    return this.#with(async (db) => {
      await table.ensure(db);
      return initLeaseStore(`PostgreSQL table ${table.schema}.${table.table}`, (era) =>
        table.initEra(db, era, INIT_FOUND_LIMIT),
      );
    });
  }

  async #with<T>(work: (db: pg.Pool) => Promise<T>): Promise<T> {
    const session = {
      store: 'PostgreSQL',
      open: () =>
        openPool({
          url: this.#url,
          connectTimeoutMs: this.#timeoutMs,
          operationTimeoutMs: this.#timeoutMs,
        }),
      close: (db: pg.Pool) => db.end().catch(() => undefined),
    };
    return withAdminSession(session, work);
  }
}
