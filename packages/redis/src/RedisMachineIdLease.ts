import { VestaError } from '@vesta/core';
import {
  CoordinatorLease,
  type CoordinatorLeaseStart,
  type CoordinatorLeaseStats,
} from '@vesta/lease';
import type { ResolvedRedisMachineIdOptions } from './RedisMachineIdOptions.js';
import type { RedisConnection } from './redis/RedisConnection.js';
import type { RedisLayout } from './redis/RedisLayout.js';
import { REDIS_SCRIPTS } from './redis/REDIS_SCRIPTS.js';

/** How a lease starts: what {@link RedisMachineIdProvider} claimed. */
export interface RedisLeaseStart extends Omit<
  CoordinatorLeaseStart,
  'coordinator' | 'root' | 'era' | 'confirmed'
> {
  readonly conn: RedisConnection;
  readonly layout: RedisLayout;
  readonly options: ResolvedRedisMachineIdOptions;
  /** The token of the allocation era the id was claimed under. */
  readonly era: string;
}

/** A lease's health, as a read-only snapshot (metrics, health checks). */
export type RedisMachineIdLeaseStats = CoordinatorLeaseStats;

/**
 * A machine id held through Redis. Every `refreshIntervalMs` a script checks the era and that
 * the record is still this instance's, raises the mark and pushes the live key's expiry back;
 * issuing is fenced when the last confirmation is older than `fenceAfterMs` or the wall clock
 * reaches the published mark (LeaseFence), and stops for good when the id moved or the era went.
 */
export class RedisMachineIdLease extends CoordinatorLease {
  readonly #redis: RedisLeaseStart;

  constructor(start: RedisLeaseStart) {
    super({ ...start, coordinator: 'Redis', root: start.layout.prefix, confirmed: true });
    this.#redis = start;
  }

  protected async renewTurn(): Promise<void> {
    const { conn, layout, options, era } = this.#redis;
    const { markMs, sentAt } = this.nextMark();
    const [outcome, owner] = (await conn.eval(
      REDIS_SCRIPTS.renew,
      [layout.era, layout.id(this.machineId), layout.live(this.machineId)],
      [era, this.instance, markMs, options.leaseTtlMs],
    )) as string[];
    if (this.closed) return;
    if (outcome === 'era') {
      this.#lose('Redis lost its data (the allocation era it was leased under is gone)', null);
    } else if (outcome === 'moved') {
      const by = owner === undefined || owner === '' ? null : owner;
      this.#lose(by === null ? 'now released' : `now owned by ${by}`, by);
    } else if (await conn.replicated(options.minReplicas)) {
      this.recordConfirmation(markMs, sentAt);
    }
  }

  protected override renewFailed(error: unknown): void {
    // A connection that stopped answering (a black hole) never recovers on its own.
    this.#redis.conn.reconnect();
    if (!VestaError.is(error, 'COORDINATOR_UNAVAILABLE')) super.renewFailed(error);
  }

  /** Publishes the final mark and drops the live key; a keyless instance gives the id up. */
  protected async releaseHold(markMs: number): Promise<boolean> {
    const { conn, layout, era } = this.#redis;
    const [outcome] = (await conn.eval(
      REDIS_SCRIPTS.release,
      [layout.era, layout.id(this.machineId), layout.live(this.machineId)],
      [era, this.instance, markMs, this.stableKey ? '1' : '0'],
    )) as string[];
    return outcome === 'ok';
  }

  protected disconnect(): void {
    this.#redis.conn.close();
  }

  #lose(why: string, owner: string | null): void {
    this.lose(why, { owner });
    this.disconnect();
  }
}
