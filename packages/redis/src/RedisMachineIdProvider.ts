import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { IdType, VestaError, type MachineIdProvider, type MachineIdRequest } from '@vesta/core';
import {
  EraWait,
  LeaseCache,
  LeaseFence,
  planLeaseClaim,
  sleepOn,
  vestaUnitMs,
  type ClaimCandidate,
  type ClaimKind,
} from '@vesta/core/kit';
import { RedisMachineIdLease } from './RedisMachineIdLease.js';
import {
  resolveRedisMachineIdOptions,
  type RedisMachineIdOptions,
  type ResolvedRedisMachineIdOptions,
} from './RedisMachineIdOptions.js';
import { RedisConnection } from './redis/RedisConnection.js';
import { RedisLayout } from './redis/RedisLayout.js';
import { REDIS_SCRIPTS } from './redis/REDIS_SCRIPTS.js';
import { readRedisClaimSnapshot, type RedisClaimRead } from './redis/readRedisClaimSnapshot.js';

const MAX_ROUNDS = 50;

/** What this provider's acquisitions did: a read-only snapshot (metrics). */
export interface RedisMachineIdStats {
  /** Ids taken that had never been used, or were released. */
  readonly fresh: number;
  /** Ids given back to the key that held them before. */
  readonly reused: number;
  /** Dead owners' ids taken over after the reclaim delay. */
  readonly reclaimed: number;
  /** Start-ups refused with MACHINE_ID_EXHAUSTED. */
  readonly refused: number;
}

interface Claimant {
  readonly conn: RedisConnection;
  readonly key: string;
  readonly stableKey: boolean;
  readonly instance: string;
  readonly request: MachineIdRequest;
}

/** Milliseconds in one time unit of the requested type. */
function unitMs(type: number): number {
  return vestaUnitMs(type === IdType.MIN_GRANULARITY ? IdType.MIN_GRANULARITY : IdType.MAX_PEAK);
}

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
  readonly #cache: LeaseCache | undefined;
  readonly #stats = { fresh: 0, reused: 0, reclaimed: 0, refused: 0 };

  /** Validates the options (INVALID_OPTIONS); connects only on {@link acquire}. */
  constructor(options: RedisMachineIdOptions) {
    this.#options = resolveRedisMachineIdOptions(options);
    this.#layout = new RedisLayout(this.#options.prefix);
    this.#cache =
      this.#options.stateDir === undefined
        ? undefined
        : new LeaseCache(this.#options.stateDir, 'redis', this.#options.prefix);
  }

  /** What this provider's acquisitions did so far (a frozen snapshot). */
  get stats(): RedisMachineIdStats {
    return Object.freeze({ ...this.#stats });
  }

  async acquire(request: MachineIdRequest): Promise<RedisMachineIdLease> {
    const o = this.#options;
    const stableKey = o.key !== undefined || this.#cache !== undefined;
    const key = o.key ?? this.#cache?.key() ?? `${hostname()}/${process.pid}/${randomUUID()}`;
    const conn = new RedisConnection(o.url, o);
    await conn.connect();
    try {
      return await this.#claim({ conn, key, stableKey, instance: randomUUID(), request });
    } catch (error) {
      conn.close();
      if (VestaError.is(error, 'MACHINE_ID_EXHAUSTED')) this.#stats.refused++;
      if (VestaError.is(error)) throw error;
      throw new VestaError(
        'COORDINATOR_UNAVAILABLE',
        `could not lease a machine id from Redis: ${String(error)}`,
        { cause: error },
      );
    }
  }

  /** CLOCK_OUT_OF_SYNC when this host's clock is further from Redis's than allowed. */
  async #checkClock(conn: RedisConnection): Promise<void> {
    const o = this.#options;
    const before = o.clock();
    const redisMs = await conn.nowMs();
    const after = o.clock();
    // Redis answered somewhere between before and after.
    const skewMs = redisMs < before ? redisMs - before : redisMs > after ? redisMs - after : 0;
    if (Math.abs(skewMs) > o.maxClockSkewMs) {
      throw new VestaError(
        'CLOCK_OUT_OF_SYNC',
        `this host's clock is ${-skewMs} ms off Redis's; more than the ${o.maxClockSkewMs} ms allowed`,
        { details: { skewMs: -skewMs, maxClockSkewMs: o.maxClockSkewMs } },
      );
    }
  }

  /**
   * The open allocation era: a Redis without one (new, or flushed) gets one, closed, and nothing
   * is handed out until `eraWaitMs` has passed since this start first saw it missing or closed.
   */
  async #enterEra(conn: RedisConnection, wait: EraWait): Promise<string> {
    const o = this.#options;
    let warned = false;
    for (;;) {
      const seenAt = wait.seenAt();
      const [token = '', open] = (await conn.eval(
        REDIS_SCRIPTS.enterEra,
        [this.#layout.era],
        [randomUUID()],
      )) as string[];
      if (open === '1') return token;
      const leftMs = wait.observe(token, seenAt);
      if (leftMs <= 0) {
        const [outcome] = (await conn.eval(
          REDIS_SCRIPTS.openEra,
          [this.#layout.era],
          [token],
        )) as string[];
        if (outcome === 'ok') return token;
        continue;
      }
      if (!warned) {
        warned = true;
        o.logger.warn(
          { prefix: o.prefix, waitMs: leftMs },
          'Redis holds no open allocation era (new, or it lost its data): waiting out the fencing bound of any previous holder',
        );
      }
      await sleepOn(o.time, Math.min(leftMs, 250));
    }
  }

  async #claim(c: Claimant): Promise<RedisMachineIdLease> {
    const o = this.#options;
    const { min, max } = c.request.range;
    await this.#checkClock(c.conn);
    const wait = new EraWait(o.time, o.eraWaitMs);
    const ownerWaitUntil = o.time.monotonic() + o.ownerWaitMs;
    const skip = new Set<number>();
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const era = await this.#enterEra(c.conn, wait);
      const read = await readRedisClaimSnapshot(c.conn, this.#layout, {
        key: c.key,
        stableKey: c.stableKey,
        range: c.request.range,
        skip,
        ownerWaitOver: o.time.monotonic() >= ownerWaitUntil,
        reclaimAfterMs: o.reclaimAfterMs,
      });
      const plan = planLeaseClaim(read.snapshot);
      if (plan.action === 'waitForOwner') {
        await sleepOn(o.time, Math.min(250, o.leaseTtlMs / 4));
        continue;
      }
      if (plan.gaveUp !== undefined) {
        o.logger.warn(
          { machineId: plan.gaveUp, key: c.key },
          'the id of this key is still held by a live lease; taking another id',
        );
        skip.add(plan.gaveUp);
      }
      for (const candidate of plan.candidates) {
        const lease = await this.#take(c, era, candidate, read);
        if (lease === undefined) continue;
        this.#count(candidate.kind);
        if (candidate.kind === 'reclaimed') {
          o.logger.warn(
            {
              machineId: candidate.machineId,
              previousOwner: candidate.record?.owner ?? null,
              idleMs: candidate.record?.idleMs,
            },
            'reclaimed the machine id of a dead owner',
          );
        }
        return lease;
      }
      if (plan.candidates.length === 0) {
        const live = read.snapshot.live.size;
        throw new VestaError(
          'MACHINE_ID_EXHAUSTED',
          `no machine id left in ${min}-${max} under ${o.prefix}: ${live} live, the others used within the last ${o.reclaimAfterMs} ms`,
          { details: { min, max, live, reclaimAfterMs: o.reclaimAfterMs } },
        );
      }
    }
    throw new VestaError(
      'MACHINE_ID_EXHAUSTED',
      `lost the race for a machine id ${MAX_ROUNDS} times in ${min}-${max}`,
      { details: { min, max } },
    );
  }

  #count(kind: ClaimKind): void {
    this.#stats[kind]++;
  }

  /** Tries one candidate; undefined when a concurrent start won it (or the era moved). */
  async #take(
    c: Claimant,
    era: string,
    candidate: ClaimCandidate,
    read: RedisClaimRead,
  ): Promise<RedisMachineIdLease | undefined> {
    const o = this.#options;
    const L = this.#layout;
    const { machineId } = candidate;
    const previous = read.records.get(machineId);
    const fence = new LeaseFence(o.time, o.fenceAfterMs);
    const sentAt = fence.sendTime();
    const floorMarkMs = previous?.markMs ?? 0;
    const notBeforeMs = floorMarkMs === 0 ? 0 : floorMarkMs + unitMs(c.request.type);
    const markMs = fence.markToPublish(notBeforeMs + o.fenceAfterMs);
    const [outcome] = (await c.conn.eval(
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
    if (!(await c.conn.replicated(o.minReplicas))) {
      throw new VestaError(
        'COORDINATOR_UNAVAILABLE',
        `fewer than ${o.minReplicas} Redis replicas acknowledged the claim of machine id ${machineId} within ${o.operationTimeoutMs} ms`,
        { details: { machineId, minReplicas: o.minReplicas } },
      );
    }
    fence.confirm(markMs, sentAt);
    const lease = new RedisMachineIdLease({
      conn: c.conn,
      layout: L,
      options: o,
      cache: this.#cache,
      machineId,
      key: c.key,
      stableKey: c.stableKey,
      instance: c.instance,
      era,
      notBeforeMs,
      floorMarkMs,
      fence,
    });
    const gapMs = notBeforeMs - o.clock();
    if (gapMs > o.maxClockWaitMs) {
      await lease.release();
      throw new VestaError(
        'CLOCK_BEHIND_HIGH_WATER_MARK',
        `this host's clock is ${gapMs} ms behind the time mark stored for machine id ${machineId}; more than the ${o.maxClockWaitMs} ms allowed to wait`,
        { details: { gapMs, markMs: floorMarkMs, machineId } },
      );
    }
    return lease;
  }
}
