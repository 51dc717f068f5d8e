import { VestaError, type MachineIdLease } from '@vesta/core';
import { RenewalLoop, type LeaseCache, type LeaseFence } from '@vesta/core/kit';
import type pg from 'pg';
import type { ResolvedPostgresMachineIdOptions } from './PostgresMachineIdOptions.js';
import { leaseControls } from './internal/leaseControls.js';
import { isPgError, PG, type PgTable } from './pg/PgTable.js';

/** How a lease starts: what {@link PostgresMachineIdProvider} claimed, or found in its cache. */
export interface PgLeaseStart {
  readonly db: pg.Pool;
  readonly table: PgTable;
  readonly options: ResolvedPostgresMachineIdOptions;
  readonly cache: LeaseCache | undefined;
  readonly machineId: number;
  readonly key: string;
  /** Whether the key outlives this process (given, or kept in the state dir). */
  readonly stableKey: boolean;
  readonly instance: string;
  /** The era the id was claimed under, or (from the cache) last confirmed under. */
  readonly era: string | undefined;
  readonly genMethod: number;
  readonly type: number;
  readonly notBeforeMs: number;
  /** The mark the id carried before this start. */
  readonly floorMarkMs: number;
  /** False when started from the cache: the first renewal must take the row back. */
  readonly confirmed: boolean;
  readonly fence: LeaseFence;
}

/** A lease's health, as a read-only snapshot (metrics, health checks). */
export interface PostgresMachineIdLeaseStats {
  /** Renewals that succeeded. */
  readonly renewals: number;
  /** Renewal turns that confirmed nothing (unreachable, failed, timed out). */
  readonly missedRenewals: number;
  /** Monotonic ms since the last confirming write was sent; undefined before the first one. */
  readonly confirmedAgeMs: number | undefined;
  /** Issuing is paused: the lease was not renewed in time (it resumes on the next renewal). */
  readonly fenced: boolean;
  /** The id belongs to someone else now, or the table lost it: issuing stopped for good. */
  readonly lost: boolean;
}

/**
 * A machine id leased from PostgreSQL: renewed every `refreshIntervalMs` (the mark published
 * `fenceAfterMs` ahead, the expiry moved on the database's clock), fenced when not renewed in
 * time, lost for good when its row names another holder, vanished, or the era changed.
 */
export class PostgresMachineIdLease implements MachineIdLease {
  readonly machineId: number;
  readonly notBeforeMs: number;
  readonly key: string;
  readonly #s: PgLeaseStart;
  readonly #fence: LeaseFence;
  readonly #loop: RenewalLoop;
  #era: string | undefined;
  #confirmed: boolean;
  #toldMs = 0;
  #lost: VestaError | undefined;
  #fenced = false;
  #closed = false;
  #renewals = 0;

  constructor(start: PgLeaseStart) {
    this.#s = start;
    this.machineId = start.machineId;
    this.notBeforeMs = start.notBeforeMs;
    this.key = start.key;
    this.#fence = start.fence;
    this.#era = start.era;
    this.#confirmed = start.confirmed;
    this.#loop = new RenewalLoop(start.options.time, start.options.refreshIntervalMs, () =>
      this.#renew(),
    );
    if (start.confirmed) this.#writeCache(start.fence.markMs);
    leaseControls.set(this, { abandon: () => this.#abandon() });
  }

  /** Throws MACHINE_ID_LEASE_LOST while the lease is not renewed recently enough, or is lost. */
  assertValid(): void {
    if (this.#lost !== undefined) throw this.#lost;
    if (this.#fence.fenced) {
      throw new VestaError(
        'MACHINE_ID_LEASE_LOST',
        `machine id ${this.machineId}: the PostgreSQL lease was not renewed within ${this.#fence.fenceAfterMs} ms; issuing is paused`,
        { details: { machineId: this.machineId } },
      );
    }
  }

  /** The service raises its mark while it runs and lowers it to just past its last id at close. */
  onHighWaterMark(markMs: number): void {
    this.#toldMs = markMs;
  }

  /** Whether the lease is confirmed now (not fenced, not lost). */
  get valid(): boolean {
    return this.#lost === undefined && !this.#fence.fenced;
  }

  /** True once the id was found to belong to another instance or lost with the table. */
  get lost(): boolean {
    return this.#lost !== undefined;
  }

  /** Renewals, missed turns, age of the last confirmation, fenced or lost (a frozen snapshot). */
  get stats(): PostgresMachineIdLeaseStats {
    return Object.freeze({
      renewals: this.#renewals,
      missedRenewals: this.#loop.turns - this.#renewals,
      confirmedAgeMs: this.#fence.confirmedAgeMs,
      fenced: this.#fence.fenced,
      lost: this.lost,
    });
  }

  /**
   * Publishes the final mark and ends the lease; an instance without a stable key gives the id
   * up (owner cleared, mark kept) so it can be re-used at once. Closes the connections.
   */
  async release(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#loop.stop();
    const { db, table, options } = this.#s;
    try {
      if (this.#lost === undefined && this.#confirmed && this.#era !== undefined) {
        const markMs = Math.max(this.#toldMs, this.#s.floorMarkMs, options.clock());
        const released = await table.release(
          db,
          this.#era,
          this.machineId,
          this.#s.instance,
          markMs,
          this.#s.stableKey,
        );
        if (released) this.#writeCache(markMs);
      }
    } catch (error) {
      options.logger.warn(
        { machineId: this.machineId, error: String(error) },
        'could not publish the final time mark; the last one stands',
      );
    } finally {
      await db.end().catch(() => undefined);
    }
  }

  #abandon(): void {
    this.#closed = true;
    this.#lost = new VestaError(
      'MACHINE_ID_LEASE_LOST',
      `machine id ${this.machineId}: the lease was abandoned`,
    );
    this.#loop.stop();
    void this.#s.db.end().catch(() => undefined);
  }

  async #renew(): Promise<void> {
    if (this.#closed || this.#lost !== undefined) return;
    try {
      if (this.#confirmed) await this.#refresh();
      else await this.#reconfirm();
    } catch (error) {
      if (isPgError(error, PG.UNDEFINED_TABLE, PG.INVALID_SCHEMA)) {
        this.#lose('the allocation table is gone (PostgreSQL lost its data)');
      } else {
        this.#s.options.logger.warn(
          { machineId: this.machineId, error: String(error) },
          'could not renew the machine id lease',
        );
      }
    } finally {
      this.#logTransitions();
    }
  }

  async #refresh(): Promise<void> {
    const era = this.#era;
    if (era === undefined) return;
    const sentAt = this.#fence.sendTime();
    const markMs = this.#fence.markToPublish(this.#toldMs, this.#s.floorMarkMs);
    const { db, table, options, instance } = this.#s;
    const renewed = await table.renew(
      db,
      era,
      this.machineId,
      instance,
      markMs,
      options.fenceAfterMs,
    );
    if (this.#closed) return;
    if (!renewed) {
      this.#lose(
        'its row is gone or names another holder, or the allocation era changed (PostgreSQL lost its data, or the id was released by hand)',
      );
      return;
    }
    this.#confirm(markMs, sentAt);
  }

  /** Takes the row back after a start from the cache. */
  async #reconfirm(): Promise<void> {
    const { db, table, options, instance } = this.#s;
    const era = this.#era;
    if (era === undefined) {
      this.#lose('the cached lease holds no allocation era');
      return;
    }
    const sentAt = this.#fence.sendTime();
    const markMs = this.#fence.markToPublish(this.#toldMs, this.#s.floorMarkMs);
    const version = await table.reconfirm(
      db,
      era,
      this.machineId,
      {
        owner: this.key,
        instance,
        markMs,
        genMethod: this.#s.genMethod,
        type: this.#s.type,
      },
      this.#s.floorMarkMs,
      options.fenceAfterMs,
    );
    if (this.#closed) return;
    if (version === undefined) {
      this.#lose('the cached id was taken by another holder meanwhile, or the table lost its data');
      return;
    }
    this.#confirmed = true;
    this.#confirm(markMs, sentAt);
    options.logger.warn(
      { machineId: this.machineId },
      'PostgreSQL reachable again: the cached machine id is confirmed',
    );
  }

  #confirm(markMs: number, sentAt: number): void {
    this.#fence.confirm(markMs, sentAt);
    this.#renewals++;
    this.#writeCache(markMs);
  }

  #logTransitions(): void {
    if (this.#closed || this.#lost !== undefined) return;
    const fenced = this.#fence.fenced;
    const { logger } = this.#s.options;
    if (fenced && !this.#fenced) {
      logger.error(
        { machineId: this.machineId, fenceAfterMs: this.#fence.fenceAfterMs },
        'machine id lease not renewed in PostgreSQL in time: issuing is paused',
      );
    } else if (!fenced && this.#fenced) {
      logger.warn({ machineId: this.machineId }, 'machine id lease renewed again: issuing resumes');
    }
    this.#fenced = fenced;
  }

  #writeCache(markMs: number): void {
    const { cache, stableKey, table, options } = this.#s;
    if (cache === undefined || !stableKey) return;
    try {
      cache.write({
        root: `${table.schema}.${table.table}`,
        key: this.key,
        machineId: this.machineId,
        markMs,
        confirmedAtMs: options.clock(),
        ...(this.#era === undefined ? {} : { era: this.#era }),
      });
    } catch (error) {
      options.logger.warn(
        { error: String(error) },
        'could not cache the machine id lease in the state dir',
      );
    }
  }

  #lose(why: string): void {
    this.#lost = new VestaError(
      'MACHINE_ID_LEASE_LOST',
      `machine id ${this.machineId} is no longer held by this instance (${this.key}): ${why}. Issuing stopped for good: restart to get a new id`,
      { details: { machineId: this.machineId } },
    );
    this.#s.options.logger.error({ machineId: this.machineId, key: this.key }, this.#lost.message);
    this.#loop.stop();
  }
}
