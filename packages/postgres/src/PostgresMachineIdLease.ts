import {
  CoordinatorLease,
  type CoordinatorLeaseStart,
  type CoordinatorLeaseStats,
} from '@vesta/lease';
import type pg from 'pg';
import type { ResolvedPostgresMachineIdOptions } from './PostgresMachineIdOptions.js';
import { isPgError, PG, type PgTable } from './pg/PgTable.js';

/** How a lease starts: what {@link PostgresMachineIdProvider} claimed, or found in its cache. */
export interface PgLeaseStart extends Omit<CoordinatorLeaseStart, 'coordinator' | 'root'> {
  readonly db: pg.Pool;
  readonly table: PgTable;
  readonly options: ResolvedPostgresMachineIdOptions;
}

/** A lease's health, as a read-only snapshot (metrics, health checks). */
export type PostgresMachineIdLeaseStats = CoordinatorLeaseStats;

/**
 * A machine id leased from PostgreSQL: renewed every `refreshIntervalMs` (the mark published
 * `fenceAfterMs` ahead, the expiry moved on the database's clock), fenced when not renewed in
 * time, lost for good when its row names another holder, vanished, or the era changed.
 */
export class PostgresMachineIdLease extends CoordinatorLease {
  readonly #pg: PgLeaseStart;

  constructor(start: PgLeaseStart) {
    super({
      ...start,
      coordinator: 'PostgreSQL',
      root: `${start.table.schema}.${start.table.table}`,
    });
    this.#pg = start;
  }

  protected async renewTurn(): Promise<void> {
    try {
      if (this.everConfirmed) await this.#refresh();
      else await this.#reconfirm();
    } catch (error) {
      if (!isPgError(error, PG.UNDEFINED_TABLE, PG.INVALID_SCHEMA)) throw error;
      this.lose('the allocation table is gone (PostgreSQL lost its data)');
    }
  }

  protected async releaseHold(markMs: number): Promise<boolean> {
    const { db, table } = this.#pg;
    const era = this.era;
    if (era === undefined) return false;
    return table.release(db, era, this.machineId, this.instance, markMs, this.stableKey);
  }

  protected async disconnect(): Promise<void> {
    if (this.#pg.db === this.#pg.options.pool) return; // the application's own pool
    await this.#pg.db.end().catch(() => undefined);
  }

  async #refresh(): Promise<void> {
    const era = this.era;
    if (era === undefined) return;
    const { db, table, options } = this.#pg;
    await this.confirmedWrite(
      (markMs) => table.renew(db, era, this.machineId, this.instance, markMs, options.fenceAfterMs),
      'its row is gone or names another holder, or the allocation era changed (PostgreSQL lost its data, or the id was released by hand)',
    );
  }

  /** Takes the row back after a start from the cache. */
  async #reconfirm(): Promise<void> {
    const { db, table, options, floorMarkMs } = this.#pg;
    const era = this.era;
    if (era === undefined) {
      this.lose('the cached lease holds no allocation era');
      return;
    }
    await this.confirmedWrite(
      (markMs) =>
        table.reconfirm(
          db,
          era,
          this.machineId,
          this.holding(markMs),
          floorMarkMs,
          options.fenceAfterMs,
        ),
      'the cached id was taken by another holder meanwhile, or the table lost its data',
    );
  }
}
