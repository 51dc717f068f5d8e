import { VestaError, type MachineIdLease } from '@vesta/core';
import { RenewalLoop, type LeaseCache, type LeaseFence } from '@vesta/core/kit';
import { leaseControls } from './internal/leaseControls.js';
import type { ResolvedRedisMachineIdOptions } from './RedisMachineIdOptions.js';
import type { RedisConnection } from './redis/RedisConnection.js';
import type { RedisLayout } from './redis/RedisLayout.js';
import { REDIS_SCRIPTS } from './redis/REDIS_SCRIPTS.js';

/** How a lease starts: what {@link RedisMachineIdProvider} claimed. */
export interface RedisLeaseStart {
  readonly conn: RedisConnection;
  readonly layout: RedisLayout;
  readonly options: ResolvedRedisMachineIdOptions;
  readonly cache: LeaseCache | undefined;
  readonly machineId: number;
  readonly key: string;
  readonly stableKey: boolean;
  readonly instance: string;
  /** The token of the allocation era the id was claimed under. */
  readonly era: string;
  readonly notBeforeMs: number;
  /** The mark the id carried before this start. */
  readonly floorMarkMs: number;
  /** Confirmed by the claim. */
  readonly fence: LeaseFence;
}

/** A lease's health, as a read-only snapshot (metrics, health checks). */
export interface RedisMachineIdLeaseStats {
  /** Renewals Redis confirmed. */
  readonly renewals: number;
  /** Renewal turns that confirmed nothing (unreachable, slow, or skipped while one was busy). */
  readonly missedRenewals: number;
  /** Monotonic ms since the last confirmed write was sent; undefined before the first one. */
  readonly confirmedAgeMs: number | undefined;
  /** Issuing is paused: the lease was not confirmed in time (resumes on the next renewal). */
  readonly fenced: boolean;
  /** The id belongs to someone else now, or Redis lost it: issuing stopped for good. */
  readonly lost: boolean;
}

/**
 * A machine id held through Redis. Every `refreshIntervalMs` a script checks the era and that
 * the record is still this instance's, raises the mark and pushes the live key's expiry back;
 * issuing is fenced when the last confirmation is older than `fenceAfterMs` or the wall clock
 * reaches the published mark (LeaseFence), and stops for good when the id moved or the era went.
 */
export class RedisMachineIdLease implements MachineIdLease {
  readonly machineId: number;
  readonly notBeforeMs: number;
  readonly key: string;
  readonly #s: RedisLeaseStart;
  readonly #fence: LeaseFence;
  readonly #loop: RenewalLoop;
  #toldMs = 0;
  #renewals = 0;
  #lost: VestaError | undefined;
  #fenced = false;
  #closed = false;

  constructor(start: RedisLeaseStart) {
    this.#s = start;
    this.machineId = start.machineId;
    this.notBeforeMs = start.notBeforeMs;
    this.key = start.key;
    this.#fence = start.fence;
    this.#loop = new RenewalLoop(start.options.time, start.options.refreshIntervalMs, () =>
      this.#renew(),
    );
    this.#writeCache(start.fence.markMs);
    leaseControls.set(this, { abandon: () => this.#abandon() });
  }

  /** Throws MACHINE_ID_LEASE_LOST while the lease is not confirmed recently enough, or is lost. */
  assertValid(): void {
    if (this.#lost !== undefined) throw this.#lost;
    if (this.#fence.fenced) {
      throw new VestaError(
        'MACHINE_ID_LEASE_LOST',
        `machine id ${this.machineId}: the Redis lease was not confirmed within ${this.#fence.fenceAfterMs} ms; issuing is paused`,
        { details: { machineId: this.machineId } },
      );
    }
  }

  onHighWaterMark(markMs: number): void {
    this.#toldMs = markMs;
  }

  /** Whether the lease is confirmed now (not fenced, not lost). */
  get valid(): boolean {
    return this.#lost === undefined && !this.#fence.fenced;
  }

  /** True once the id was found to be someone else's or Redis lost it: never resumes. */
  get lost(): boolean {
    return this.#lost !== undefined;
  }

  /** Renewals, missed turns, age of the last confirmation, fenced or lost (a frozen snapshot). */
  get stats(): RedisMachineIdLeaseStats {
    return Object.freeze({
      renewals: this.#renewals,
      missedRenewals: this.#loop.turns - this.#renewals,
      confirmedAgeMs: this.#fence.confirmedAgeMs,
      fenced: this.#fence.fenced,
      lost: this.lost,
    });
  }

  /** Publishes the final mark, drops the live key; a keyless instance gives the id up. */
  async release(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#loop.stop();
    const { conn, layout, options, floorMarkMs, era, instance, stableKey } = this.#s;
    try {
      if (this.#lost === undefined) {
        const markMs = Math.max(this.#toldMs, floorMarkMs, options.clock());
        const [outcome] = (await conn.eval(
          REDIS_SCRIPTS.release,
          [layout.era, layout.id(this.machineId), layout.live(this.machineId)],
          [era, instance, markMs, stableKey ? '1' : '0'],
        )) as string[];
        if (outcome === 'ok') this.#writeCache(markMs);
      }
    } catch (error) {
      options.logger.warn(
        { machineId: this.machineId, error: String(error) },
        'could not publish the final time mark; the last one stands',
      );
    } finally {
      conn.close();
    }
  }

  #abandon(): void {
    this.#closed = true;
    this.#lost = new VestaError(
      'MACHINE_ID_LEASE_LOST',
      `machine id ${this.machineId}: the lease was abandoned`,
    );
    this.#loop.stop();
    this.#s.conn.close();
  }

  async #renew(): Promise<void> {
    if (this.#closed || this.#lost !== undefined) return;
    const { conn, layout, options, floorMarkMs, era, instance } = this.#s;
    const sentAt = this.#fence.sendTime();
    const markMs = this.#fence.markToPublish(this.#toldMs, floorMarkMs);
    try {
      const [outcome, owner] = (await conn.eval(
        REDIS_SCRIPTS.renew,
        [layout.era, layout.id(this.machineId), layout.live(this.machineId)],
        [era, instance, markMs, options.leaseTtlMs],
      )) as string[];
      if (this.#closed) return;
      if (outcome === 'era') {
        this.#lose(null, 'Redis lost its data (the allocation era it was leased under is gone)');
      } else if (outcome === 'moved') {
        this.#lose(owner === undefined || owner === '' ? null : owner);
      } else if (await conn.replicated(options.minReplicas)) {
        this.#fence.confirm(markMs, sentAt);
        this.#renewals++;
        this.#writeCache(markMs);
      }
    } catch (error) {
      // A connection that stopped answering (a black hole) never recovers on its own.
      if (!this.#closed) conn.reconnect();
      if (!VestaError.is(error, 'COORDINATOR_UNAVAILABLE')) {
        options.logger.warn(
          { machineId: this.machineId, error: String(error) },
          'could not renew the machine id lease',
        );
      }
    } finally {
      this.#logTransitions();
    }
  }

  #logTransitions(): void {
    if (this.#closed || this.#lost !== undefined) return;
    const fenced = this.#fence.fenced;
    const { logger } = this.#s.options;
    if (fenced && !this.#fenced) {
      logger.error(
        { machineId: this.machineId, fenceAfterMs: this.#fence.fenceAfterMs },
        'machine id lease not confirmed by Redis in time: issuing is paused',
      );
    } else if (!fenced && this.#fenced) {
      logger.warn(
        { machineId: this.machineId },
        'machine id lease confirmed again: issuing resumes',
      );
    }
    this.#fenced = fenced;
  }

  #writeCache(markMs: number): void {
    const { cache, stableKey, layout, options, era } = this.#s;
    if (cache === undefined || !stableKey) return;
    try {
      cache.write({
        root: layout.prefix,
        key: this.key,
        machineId: this.machineId,
        markMs,
        confirmedAtMs: options.clock(),
        era,
      });
    } catch (error) {
      options.logger.warn(
        { error: String(error) },
        'could not cache the machine id lease in the state dir',
      );
    }
  }

  #lose(owner: string | null, why?: string): void {
    const now = why ?? (owner === null ? 'now released' : `now owned by ${owner}`);
    this.#lost = new VestaError(
      'MACHINE_ID_LEASE_LOST',
      `machine id ${this.machineId} is no longer held by this instance (${this.key}); ${now}. Issuing stopped for good: restart to get a new id`,
      { details: { machineId: this.machineId, owner } },
    );
    this.#s.options.logger.error(
      { machineId: this.machineId, key: this.key, owner },
      this.#lost.message,
    );
    this.#loop.stop();
    this.#s.conn.close();
  }
}
