import { VestaError } from '@vesta/core';
import { checkOption, wholeNumber } from '@vesta/core/kit';
import type pg from 'pg';
import { identifierOption, postgresUrlOption } from './PostgresMachineIdOptions.js';
import { openPool } from './pg/openPool.js';
import { PgTable } from './pg/PgTable.js';

/** Options of {@link PostgresAdmin}. */
export interface PostgresAdminOptions {
  /** The database, as a `postgres://` URL. */
  readonly url: string;
  /** The allocation table's schema. @default 'vesta' */
  readonly schema?: string;
  /** The allocation table. @default 'machine_ids' */
  readonly table?: string;
  /** Deadline of the connection and of each statement. @default 5000 */
  readonly timeoutMs?: number;
}

/** One machine id's allocation, as {@link PostgresAdmin.list} reports it. */
export interface PostgresMachineIdAllocation {
  readonly machineId: number;
  /** The owner's key; null when released. */
  readonly owner: string | null;
  /** Whether a lease holds it now (a holder and an expiry still ahead, database clock). */
  readonly alive: boolean;
  /** The last published time mark (Unix ms). */
  readonly markMs: number;
  /** Milliseconds since the row was last written (database clock). */
  readonly ageMs: number;
  readonly host: string | undefined;
  readonly pid: number | undefined;
}

/** Operators' view of a fleet's allocations in PostgreSQL: list them, release an id by hand. */
export class PostgresAdmin {
  readonly #url: string;
  readonly #table: PgTable;
  readonly #timeoutMs: number;

  /** Validates the options (INVALID_OPTIONS); connects on each call. */
  constructor(options: PostgresAdminOptions) {
    this.#url = checkOption(postgresUrlOption, 'url', options.url);
    this.#table = new PgTable(
      checkOption(identifierOption, 'schema', options.schema ?? 'vesta'),
      checkOption(identifierOption, 'table', options.table ?? 'machine_ids'),
    );
    this.#timeoutMs = checkOption(wholeNumber(1, 600_000), 'timeoutMs', options.timeoutMs ?? 5000);
  }

  /** Every allocated id of the table, in id order (none when the table does not exist). */
  async list(): Promise<PostgresMachineIdAllocation[]> {
    return this.#with(async (db) => {
      if (!(await this.#table.exists(db))) return [];
      return (await this.#table.readAll(db)).map((r) => ({
        machineId: r.machineId,
        owner: r.owner,
        alive: r.live,
        markMs: r.markMs,
        ageMs: r.idleMs,
        host: r.host ?? undefined,
        pid: r.pid ?? undefined,
      }));
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
    if (!Number.isInteger(machineId) || machineId < 0 || machineId > 1023) {
      throw new VestaError(
        'INVALID_ARGUMENT',
        `machine id must be a whole number from 0 to 1023, got ${String(machineId)}`,
      );
    }
    return this.#with(async (db) => {
      const table = this.#table;
      const row = (await table.exists(db))
        ? (await table.readRows(db, machineId, machineId, '')).find(
            (r) => r.machineId === machineId,
          )
        : undefined;
      if (row === undefined) {
        throw new VestaError(
          'NOT_FOUND',
          `machine id ${machineId} is not allocated in ${table.schema}.${table.table}`,
        );
      }
      if (row.live && options.force !== true) {
        throw new VestaError(
          'INVALID_ARGUMENT',
          `machine id ${machineId} is held by a live instance (${row.owner ?? 'unknown'}); use --force to take it away`,
        );
      }
      if (!(await table.adminRelease(db, machineId, row.version))) {
        throw new VestaError(
          'INVALID_ARGUMENT',
          `machine id ${machineId} changed while being released; try again`,
        );
      }
      return {
        machineId,
        owner: row.owner,
        alive: row.live,
        markMs: row.markMs,
        ageMs: 0,
        host: row.host ?? undefined,
        pid: row.pid ?? undefined,
      };
    });
  }

  async #with<T>(work: (db: pg.Pool) => Promise<T>): Promise<T> {
    const db = openPool({
      url: this.#url,
      connectTimeoutMs: this.#timeoutMs,
      operationTimeoutMs: this.#timeoutMs,
    });
    try {
      return await work(db);
    } catch (error) {
      if (VestaError.is(error)) throw error;
      throw new VestaError(
        'COORDINATOR_UNAVAILABLE',
        `PostgreSQL request failed: ${String(error)}`,
        { cause: error },
      );
    } finally {
      await db.end().catch(() => undefined);
    }
  }
}
