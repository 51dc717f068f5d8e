import { hostname } from 'node:os';
import { VestaError, type MachineIdProvider, type MachineIdRequest } from '@vesta/core';
import {
  enterLeaseEra,
  LeaseClaimer,
  type ClaimSnapshot,
  type LeaseClaimant,
  type LeaseClaimRound,
  type LeaseClaimStats,
  eraWaitLog,
} from '@vesta/lease';
import { RedisMachineIdLease } from './RedisMachineIdLease.js';
import {
  resolveRedisMachineIdOptions,
  type RedisMachineIdOptions,
  type ResolvedRedisMachineIdOptions,
} from './RedisMachineIdOptions.js';
import { RedisConnection } from './redis/RedisConnection.js';
import { RedisLayout } from './redis/RedisLayout.js';
import { REDIS_SCRIPTS } from './redis/REDIS_SCRIPTS.js';
import { redisEraStore } from './redis/redisEraStore.js';
import { readRedisClaimSnapshot } from './redis/readRedisClaimSnapshot.js';

/** What this provider's acquisitions did: a read-only snapshot (metrics). */
export type RedisMachineIdStats = Omit<LeaseClaimStats, 'fromCache'>;

/**
 * Leases machine ids from Redis: atomic claims in Lua scripts, a live key with PX expiry renewed
 * by the holder, the same id for the same key, dead owners' ids reclaimed after a delay with their
 * time marks carried over, and an era key so that a flushed Redis hands out nothing before every
 * old holder has fenced itself. See the package README, including what Redis does not guarantee.
 *
 * @example
 * const ids = await createEmbeddedIdService({
 *   machineIdProvider: new RedisMachineIdProvider({ url: 'redis://redis:6379', key: 'orders-7' }),
 * });
 */
export class RedisMachineIdProvider implements MachineIdProvider {
  readonly #options: ResolvedRedisMachineIdOptions;
  readonly #layout: RedisLayout;
  readonly #claimer: LeaseClaimer;

  /** Validates the options (INVALID_OPTIONS); connects only on {@link acquire}. */
  constructor(options: RedisMachineIdOptions) {
    const o = resolveRedisMachineIdOptions(options);
    this.#options = o;
    this.#layout = new RedisLayout(o.prefix);
    this.#claimer = new LeaseClaimer({
      options: o,
      files: 'redis',
      coordinator: 'Redis',
      address: new URL(o.url).host,
      root: o.prefix,
    });
  }

  /** What this provider's acquisitions did so far (a frozen snapshot). */
  get stats(): RedisMachineIdStats {
    const { fresh, reused, reclaimed, refused } = this.#claimer.stats;
    return Object.freeze({ fresh, reused, reclaimed, refused });
  }

  /**
   * The store round trips this provider's claims cost so far: each claim round's read and each
   * claim write (connecting, the clock check and the era are outside the count).
   */
  get roundTrips(): number {
    return this.#claimer.roundTrips;
  }

  async acquire(request: MachineIdRequest): Promise<RedisMachineIdLease> {
    const o = this.#options;
    const c = this.#claimer.claimant(request);
    const conn = new RedisConnection(o.url, o);
    await conn.connect();
    try {
      await this.#claimer.checkClock(() => conn.nowMs());
      const pollMs = Math.min(250, o.leaseTtlMs / 4);
      return await this.#claimer.claim(c, pollMs, (state) => this.#round(conn, c, state));
    } catch (error) {
      conn.close();
      throw this.#claimer.failure(error);
    }
  }

  /** One claim round: the open era, the ids of the range and the key, and how to claim one. */
  async #round(
    conn: RedisConnection,
    c: LeaseClaimant,
    state: Pick<ClaimSnapshot, 'skip' | 'ownerWaitOver'>,
  ): Promise<LeaseClaimRound<RedisMachineIdLease>> {
    const o = this.#options;
    const L = this.#layout;
    const { era } = await enterLeaseEra(
      redisEraStore(conn, L.era),
      o.eraWaitMs,
      o.time,
      eraWaitLog(o.logger, 'Redis', { prefix: o.prefix }),
    );
    const read = await readRedisClaimSnapshot(conn, L, {
      ...state,
      key: c.key,
      stableKey: c.stableKey,
      range: c.request.range,
      reclaimAfterMs: o.reclaimAfterMs,
    });
    return {
      snapshot: read.snapshot,
      take: (candidate) => {
        const { machineId } = candidate;
        const previous = read.records.get(machineId);
        return this.#claimer.takeWithFence({
          machineId,
          floorMarkMs: previous?.markMs ?? 0,
          type: c.request.type,
          write: async (markMs) => {
            const [outcome] = (await conn.eval(
              REDIS_SCRIPTS.claim,
              [L.era, L.id(machineId), L.live(machineId), L.ids, L.key(c.key)],
              [
                era,
                previous?.version ?? 0,
                c.key,
                c.instance,
                markMs,
                c.request.genMethod,
                c.request.type,
                hostname(),
                process.pid,
                o.leaseTtlMs,
                machineId,
                c.stableKey ? '1' : '0',
              ],
            )) as string[];
            if (outcome !== 'ok') return undefined;
            if (!(await conn.replicated(o.minReplicas))) {
              throw new VestaError(
                'COORDINATOR_UNAVAILABLE',
                `fewer than ${o.minReplicas} Redis replicas acknowledged the claim of machine id ${machineId} within ${o.operationTimeoutMs} ms`,
                { details: { machineId, minReplicas: o.minReplicas } },
              );
            }
            return true;
          },
          lease: (_written, opening) =>
            new RedisMachineIdLease({
              ...opening,
              conn,
              layout: L,
              options: o,
              cache: this.#claimer.cache,
              claimant: c,
              era,
            }),
        });
      },
    };
  }
}
