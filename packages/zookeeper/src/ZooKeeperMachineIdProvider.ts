import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { IdType, VestaError, type MachineIdProvider, type MachineIdRequest } from '@vesta/core';
import {
  cachedLeaseFallback,
  LeaseCache,
  LeaseFence,
  planLeaseClaim,
  sleepOn,
  vestaUnitMs,
  type ClaimCandidate,
  type ClaimKind,
} from '@vesta/core/kit';
import { ZooKeeperMachineIdLease } from './ZooKeeperMachineIdLease.js';
import {
  resolveZooKeeperMachineIdOptions,
  type ResolvedZooKeeperMachineIdOptions,
  type ZooKeeperMachineIdOptions,
} from './ZooKeeperMachineIdOptions.js';

import { checkZooKeeperClock } from './zk/checkZooKeeperClock.js';
import { claimIdNode } from './zk/claimIdNode.js';
import { enterAllocationEra } from './zk/enterAllocationEra.js';
import { encodeIdNode } from './zk/IdNodeData.js';
import { readClaimSnapshot, type ClaimRead } from './zk/readClaimSnapshot.js';
import { ZkClient } from './zk/ZkClient.js';
import { ZkLayout } from './zk/ZkLayout.js';

const MAX_ROUNDS = 50;

/** Milliseconds in one time unit of the requested type. */
function unitMs(type: number): number {
  return vestaUnitMs(type === IdType.MIN_GRANULARITY ? IdType.MIN_GRANULARITY : IdType.MAX_PEAK);
}

/** CLOCK_BEHIND_HIGH_WATER_MARK: the clock is further behind the id's mark than the wait allowed. */
function clockBehind(
  gapMs: number,
  markMs: number,
  machineId: number,
  maxClockWaitMs: number,
  which: string,
): VestaError {
  return new VestaError(
    'CLOCK_BEHIND_HIGH_WATER_MARK',
    `this host's clock is ${gapMs} ms behind ${which} machine id ${machineId}; more than the ${maxClockWaitMs} ms allowed to wait`,
    { details: { gapMs, markMs, machineId } },
  );
}

/** What this provider's acquisitions did: a read-only snapshot (metrics, figures). */
export interface ZooKeeperMachineIdStats {
  /** Ids taken that had never been used, or were released. */
  readonly fresh: number;
  /** Ids given back to the key that held them before. */
  readonly reused: number;
  /** Dead owners' ids taken over after the reclaim delay. */
  readonly reclaimed: number;
  /** Start-ups refused with MACHINE_ID_EXHAUSTED. */
  readonly refused: number;
  /** Start-ups on the cached lease while ZooKeeper was down. */
  readonly fromCache: number;
}

/** Who claims: the same for every id tried in one acquisition. */
interface Claimant {
  readonly zk: ZkClient;
  readonly key: string;
  readonly stableKey: boolean;
  readonly instance: string;
  readonly request: MachineIdRequest;
}

/**
 * Leases machine ids from ZooKeeper: unique among live instances, the same id for the same key
 * across restarts, dead owners' ids taken over after a reclaim delay, and the time marks carried
 * over so that no id is ever issued twice. See the package README for the design.
 *
 * @example
 * const ids = await createEmbeddedIdService({
 *   machineIdProvider: new ZooKeeperMachineIdProvider({ connect: 'zk1:2181,zk2:2181', key: 'orders-7' }),
 * });
 */
export class ZooKeeperMachineIdProvider implements MachineIdProvider {
  readonly #options: ResolvedZooKeeperMachineIdOptions;
  readonly #stats: { -readonly [K in keyof ZooKeeperMachineIdStats]: number } = {
    fresh: 0,
    reused: 0,
    reclaimed: 0,
    refused: 0,
    fromCache: 0,
  };
  readonly #layout: ZkLayout;
  readonly #cache: LeaseCache | undefined;

  /** Validates the options (INVALID_OPTIONS); connects only on {@link acquire}. */
  constructor(options: ZooKeeperMachineIdOptions) {
    this.#options = resolveZooKeeperMachineIdOptions(options);
    this.#layout = new ZkLayout(this.#options.root);
    this.#cache =
      this.#options.stateDir === undefined
        ? undefined
        : new LeaseCache(this.#options.stateDir, 'zookeeper', this.#options.root);
  }

  /** What this provider's acquisitions did so far (a frozen snapshot). */
  get stats(): ZooKeeperMachineIdStats {
    return Object.freeze({ ...this.#stats });
  }

  async acquire(request: MachineIdRequest): Promise<ZooKeeperMachineIdLease> {
    const o = this.#options;
    const stableKey = o.key !== undefined || this.#cache !== undefined;
    const key = o.key ?? this.#cache?.key() ?? `${hostname()}/${process.pid}/${randomUUID()}`;
    const { zk, whenConnected } = ZkClient.open(o.connect, o);
    try {
      await whenConnected;
    } catch (error) {
      return this.#fromCache(zk, key, request, error);
    }
    try {
      return await this.#claim({ zk, key, stableKey, instance: randomUUID(), request });
    } catch (error) {
      zk.close();
      if (VestaError.is(error, 'MACHINE_ID_EXHAUSTED')) this.#stats.refused++;
      if (VestaError.is(error)) throw error;
      throw new VestaError(
        'ZOOKEEPER_UNAVAILABLE',
        `could not lease a machine id from ZooKeeper: ${String(error)}`,
        { cause: error },
      );
    }
  }

  /** Rounds of read, plan (see planLeaseClaim) and claim, until a claim wins or nothing is left. */
  async #claim(c: Claimant): Promise<ZooKeeperMachineIdLease> {
    const o = this.#options;
    const L = this.#layout;
    const { min, max } = c.request.range;
    await Promise.all([c.zk.mkdirp(L.ids), c.zk.mkdirp(L.live), c.zk.mkdirp(L.keys)]);
    const zkClock = await checkZooKeeperClock(c.zk, L, o.maxClockSkewMs, o.time);
    const enterEra = () => enterAllocationEra(c.zk, L, o.eraWaitMs, o.logger, o.time);
    let era = await enterEra();
    const ownerWaitUntil = o.time.monotonic() + o.ownerWaitMs;
    const skip = new Set<number>();

    for (let round = 0; round < MAX_ROUNDS; round++) {
      // A claim that lost to a data loss (the era's token gone) waits for the new era.
      if (round > 0) era = await enterEra();
      const read = await readClaimSnapshot(c.zk, L, {
        key: c.key,
        stableKey: c.stableKey,
        range: c.request.range,
        skip,
        ownerWaitOver: o.time.monotonic() >= ownerWaitUntil,
        reclaimAfterMs: o.reclaimAfterMs,
        zkClock,
      });
      const plan = planLeaseClaim(read.snapshot);
      if (plan.action === 'waitForOwner') {
        await sleepOn(o.time, Math.min(250, o.sessionTimeoutMs / 4));
        continue;
      }
      if (plan.gaveUp !== undefined) {
        o.logger.warn(
          { machineId: plan.gaveUp, key: c.key },
          'the id of this key is still held by a live session; taking another id',
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
          `no machine id left in ${min}-${max} under ${L.root}: ${live} live, the others used within the last ${o.reclaimAfterMs} ms`,
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

  /** Tries one candidate; undefined when a concurrent start won it. */
  async #take(
    c: Claimant,
    era: string,
    candidate: ClaimCandidate,
    read: ClaimRead,
  ): Promise<ZooKeeperMachineIdLease | undefined> {
    const o = this.#options;
    const { machineId } = candidate;
    const previous = candidate.record === undefined ? undefined : read.nodes.get(machineId);
    const fence = new LeaseFence(o.time, o.fenceAfterMs);
    const sentAt = fence.sendTime();
    const floorMarkMs = previous?.data.markMs ?? 0;
    const notBeforeMs = floorMarkMs === 0 ? 0 : floorMarkMs + unitMs(c.request.type);
    const markMs = fence.markToPublish(notBeforeMs + o.fenceAfterMs);
    const won = await claimIdNode(c.zk, this.#layout, {
      era,
      machineId,
      data: encodeIdNode({
        owner: c.key,
        instance: c.instance,
        markMs,
        genMethod: c.request.genMethod,
        type: c.request.type,
      }),
      version: previous?.version,
      key: c.key,
      instance: c.instance,
      keyNode: c.stableKey ? { version: read.keyVersion } : undefined,
    });
    if (!won) return undefined;
    fence.confirm(markMs, sentAt);
    const lease = new ZooKeeperMachineIdLease({
      ...this.#leaseBase(c, machineId, notBeforeMs, floorMarkMs, fence),
      stableKey: c.stableKey,
      instance: c.instance,
      era,
      version: previous === undefined ? 0 : previous.version + 1,
    });
    const gapMs = notBeforeMs - o.clock();
    if (gapMs > o.maxClockWaitMs) {
      await lease.release();
      throw clockBehind(
        gapMs,
        floorMarkMs,
        machineId,
        o.maxClockWaitMs,
        'the time mark stored for',
      );
    }
    return lease;
  }

  #leaseBase(
    c: Pick<Claimant, 'zk' | 'key' | 'request'>,
    machineId: number,
    notBeforeMs: number,
    floorMarkMs: number,
    fence: LeaseFence,
  ) {
    return {
      zk: c.zk,
      layout: this.#layout,
      options: this.#options,
      cache: this.#cache,
      machineId,
      key: c.key,
      genMethod: c.request.genMethod,
      type: c.request.type,
      notBeforeMs,
      floorMarkMs,
      fence,
    } as const;
  }

  /** A start while ZooKeeper is unreachable: on the cached lease, if the fallback rule allows. */
  #fromCache(
    zk: ZkClient,
    key: string,
    request: MachineIdRequest,
    cause: unknown,
  ): ZooKeeperMachineIdLease {
    const o = this.#options;
    const decision = cachedLeaseFallback({
      fallbackToCache: o.fallbackToCache,
      cache: this.#cache,
      key,
      root: o.root,
      range: request.range,
      nowMs: o.clock(),
      unitMs: unitMs(request.type),
      reclaimAfterMs: o.reclaimAfterMs,
      fenceAfterMs: o.fenceAfterMs,
      maxClockSkewMs: o.maxClockSkewMs,
      maxClockWaitMs: o.maxClockWaitMs,
    });
    if (!decision.use) {
      zk.close();
      if ('why' in decision) {
        throw new VestaError(
          'ZOOKEEPER_UNAVAILABLE',
          `ZooKeeper at ${o.connect} is unreachable and ${decision.why}`,
          { cause },
        );
      }
      const { gapMs, cached } = decision.clockBehind;
      throw clockBehind(
        gapMs,
        cached.markMs,
        cached.machineId,
        o.maxClockWaitMs,
        'the cached time mark of',
      );
    }
    const { cached, validUntilMs, notBeforeMs } = decision;
    o.logger.warn(
      {
        machineId: cached.machineId,
        connect: o.connect,
        validUntil: new Date(validUntilMs).toISOString(),
      },
      'ZooKeeper is unreachable: starting on the machine id cached by the last good lease',
    );
    this.#stats.fromCache++;
    const fence = new LeaseFence(o.time, o.fenceAfterMs);
    fence.holdUntil(validUntilMs);
    return new ZooKeeperMachineIdLease({
      ...this.#leaseBase({ zk, key, request }, cached.machineId, notBeforeMs, cached.markMs, fence),
      stableKey: true,
      instance: randomUUID(),
      era: cached.era,
      version: undefined,
    });
  }
}
