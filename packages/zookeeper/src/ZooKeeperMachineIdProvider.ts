import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { IdType, VestaError, type MachineIdProvider, type MachineIdRequest } from '@vesta/core';
import { sleep, vestaUnitMs } from '@vesta/core/kit';
import { LeaseCache } from './LeaseCache.js';
import { ZooKeeperMachineIdLease } from './ZooKeeperMachineIdLease.js';
import {
  resolveZooKeeperMachineIdOptions,
  type ResolvedZooKeeperMachineIdOptions,
  type ZooKeeperMachineIdOptions,
} from './ZooKeeperMachineIdOptions.js';
import { decodeIdNode, decodeKeyNode, encodeJson, type IdNodeData } from './zk/IdNodeData.js';
import { enterAllocationEra } from './zk/enterAllocationEra.js';
import { isZkError, statTimeMs, ZK, ZkClient, type ZkOp } from './zk/ZkClient.js';
import { ZkLayout } from './zk/ZkLayout.js';

const MAX_ROUNDS = 50;

/** Milliseconds in one time unit of the requested type. */
function unitMs(type: number): number {
  return vestaUnitMs(type === IdType.MIN_GRANULARITY ? IdType.MIN_GRANULARITY : IdType.MAX_PEAK);
}

/** What one claim attempt needs to know about the key node. */
interface KeyNode {
  readonly machineId: number | undefined;
  readonly version: number | undefined;
}

/** Counters of what acquisitions did (for figures and tests). */
export interface ZooKeeperMachineIdStats {
  /** Ids taken that had never been used, or were released. */
  fresh: number;
  /** Ids given back to the key that held them before. */
  reused: number;
  /** Dead owners' ids taken over after the reclaim delay. */
  reclaimed: number;
  /** Start-ups refused with MACHINE_ID_EXHAUSTED. */
  refused: number;
  /** Start-ups on the cached lease while ZooKeeper was down. */
  fromCache: number;
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
  readonly options: ResolvedZooKeeperMachineIdOptions;
  readonly stats: ZooKeeperMachineIdStats = {
    fresh: 0,
    reused: 0,
    reclaimed: 0,
    refused: 0,
    fromCache: 0,
  };
  readonly #layout: ZkLayout;
  readonly #cache: LeaseCache | undefined;

  constructor(options: ZooKeeperMachineIdOptions) {
    this.options = resolveZooKeeperMachineIdOptions(options);
    this.#layout = new ZkLayout(this.options.root);
    this.#cache =
      this.options.stateDir === undefined
        ? undefined
        : new LeaseCache(this.options.stateDir, this.options.root);
  }

  async acquire(request: MachineIdRequest): Promise<ZooKeeperMachineIdLease> {
    const o = this.options;
    const stableKey = o.key !== undefined || this.#cache !== undefined;
    const key = o.key ?? this.#cache?.key() ?? `${hostname()}/${process.pid}/${randomUUID()}`;
    const { zk, whenConnected } = ZkClient.open(o.connect, o);
    try {
      await whenConnected;
    } catch (error) {
      return this.#fromCache(zk, key, request, error);
    }
    try {
      return await this.#claim(zk, key, stableKey, request);
    } catch (error) {
      zk.close();
      if (VestaError.is(error, 'MACHINE_ID_EXHAUSTED')) this.stats.refused++;
      if (VestaError.is(error)) throw error;
      throw new VestaError(
        'ZOOKEEPER_UNAVAILABLE',
        `could not lease a machine id from ZooKeeper: ${String(error)}`,
        { cause: error },
      );
    }
  }

  async #claim(
    zk: ZkClient,
    key: string,
    stableKey: boolean,
    request: MachineIdRequest,
  ): Promise<ZooKeeperMachineIdLease> {
    const o = this.options;
    const L = this.#layout;
    const { min, max } = request.range;
    await Promise.all([zk.mkdirp(L.ids), zk.mkdirp(L.live), zk.mkdirp(L.keys)]);
    const zkNow = await this.#checkClock(zk);
    const instance = randomUUID();
    let era = await enterAllocationEra(zk, L, o.eraWaitMs, o.logger);
    const ownerWaitUntil = performance.now() + o.ownerWaitMs;
    const skip = new Set<number>();

    for (let round = 0; round < MAX_ROUNDS; round++) {
      // A claim that lost to a data loss (the era's token gone) waits for the new era.
      if (round > 0) era = await enterAllocationEra(zk, L, o.eraWaitMs, o.logger);
      const keyNode = stableKey
        ? await this.#readKey(zk, key)
        : { machineId: undefined, version: undefined };
      const live = new Set((await zk.getChildren(L.live)).map(Number));
      const claim = async (
        machineId: number,
        previous: { data: IdNodeData; version: number } | undefined,
      ): Promise<ZooKeeperMachineIdLease | undefined> => {
        const sentAt = performance.now();
        const floorMarkMs = previous?.data.markMs ?? 0;
        const notBeforeMs = floorMarkMs === 0 ? 0 : floorMarkMs + unitMs(request.type);
        const ackMarkMs = Math.max(notBeforeMs, o.clock()) + o.fenceAfterMs;
        const data = encodeJson({
          owner: key,
          instance,
          markMs: ackMarkMs,
          genMethod: request.genMethod,
          type: request.type,
          host: hostname(),
          pid: process.pid,
        });
        const ops: ZkOp[] = [
          { op: 'check', path: L.eraToken(era), version: 0 },
          previous === undefined
            ? { op: 'create', path: L.idPath(machineId), data, ephemeral: false }
            : { op: 'setData', path: L.idPath(machineId), data, version: previous.version },
          {
            op: 'create',
            path: L.livePath(machineId),
            data: encodeJson({ owner: key, instance }),
            ephemeral: true,
          },
        ];
        if (stableKey) {
          const keyData = encodeJson({ machineId });
          ops.push(
            keyNode.version === undefined
              ? { op: 'create', path: L.keyPath(key), data: keyData, ephemeral: false }
              : { op: 'setData', path: L.keyPath(key), data: keyData, version: keyNode.version },
          );
        }
        try {
          await zk.multi(ops);
        } catch (error) {
          if (
            isZkError(error, ZK.NODE_EXISTS) ||
            isZkError(error, ZK.BAD_VERSION) ||
            isZkError(error, ZK.NO_NODE)
          )
            return undefined;
          throw error;
        }
        const lease = new ZooKeeperMachineIdLease({
          zk,
          layout: L,
          options: o,
          cache: this.#cache,
          machineId,
          key,
          stableKey,
          instance,
          era,
          genMethod: request.genMethod,
          type: request.type,
          notBeforeMs,
          floorMarkMs,
          version: previous === undefined ? 0 : previous.version + 1,
          ackMarkMs,
          deadline: sentAt + o.fenceAfterMs,
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
      };

      // 1. The id this key held before.
      const own = keyNode.machineId;
      if (own !== undefined && own >= min && own <= max && !skip.has(own)) {
        const node = await zk.getData(L.idPath(own));
        const data = node === undefined ? undefined : decodeIdNode(node.data);
        if (node !== undefined && data?.owner === key) {
          if (live.has(own)) {
            if (performance.now() < ownerWaitUntil) {
              await sleep(Math.min(250, o.sessionTimeoutMs / 4));
              continue;
            }
            o.logger.warn(
              { machineId: own, key },
              'the id of this key is still held by a live session; taking another id',
            );
            skip.add(own);
          } else {
            const lease = await claim(own, { data, version: node.stat.version });
            if (lease !== undefined) {
              this.stats.reused++;
              return lease;
            }
            continue;
          }
        }
      }

      // 2. An id never used, or released.
      const used = new Set((await zk.getChildren(L.ids)).map(Number));
      let raced = false;
      for (let id = min; id <= max; id++) {
        if (live.has(id) || skip.has(id)) continue;
        let previous: { data: IdNodeData; version: number } | undefined;
        if (used.has(id)) {
          const node = await this.#peekReleased(zk, id);
          if (node === undefined) continue;
          previous = node;
        }
        const lease = await claim(id, previous);
        if (lease !== undefined) {
          this.stats.fresh++;
          return lease;
        }
        raced = true;
      }

      // 3. A dead owner's id, once its mark is older than the reclaim delay (ZooKeeper's clock).
      const now = zkNow.at();
      const candidates: { id: number; data: IdNodeData; version: number; ageMs: number }[] = [];
      for (let id = min; id <= max; id++) {
        if (live.has(id) || !used.has(id) || skip.has(id)) continue;
        const node = await zk.getData(L.idPath(id));
        const data = node === undefined ? undefined : decodeIdNode(node.data);
        if (node === undefined || data === undefined) continue;
        const ageMs = now - statTimeMs(node.stat.mtime);
        if (ageMs > o.reclaimAfterMs)
          candidates.push({ id, data, version: node.stat.version, ageMs });
      }
      candidates.sort((a, b) => b.ageMs - a.ageMs);
      for (const c of candidates) {
        const lease = await claim(c.id, { data: c.data, version: c.version });
        if (lease !== undefined) {
          this.stats.reclaimed++;
          o.logger.warn(
            { machineId: c.id, previousOwner: c.data.owner, idleMs: c.ageMs },
            'reclaimed the machine id of a dead owner',
          );
          return lease;
        }
        raced = true;
      }
      if (!raced) {
        throw new VestaError(
          'MACHINE_ID_EXHAUSTED',
          `no machine id left in ${min}-${max} under ${L.root}: ${live.size} live, the others used within the last ${o.reclaimAfterMs} ms`,
          { details: { min, max, live: live.size, reclaimAfterMs: o.reclaimAfterMs } },
        );
      }
    }
    throw new VestaError(
      'MACHINE_ID_EXHAUSTED',
      `lost the race for a machine id ${MAX_ROUNDS} times in ${min}-${max}`,
      {
        details: { min, max },
      },
    );
  }

  /** An id node with no owner (released): free to take, its mark carried over. */
  async #peekReleased(
    zk: ZkClient,
    id: number,
  ): Promise<{ data: IdNodeData; version: number } | undefined> {
    const node = await zk.getData(this.#layout.idPath(id));
    const data = node === undefined ? undefined : decodeIdNode(node.data);
    return node !== undefined && data !== undefined && data.owner === null
      ? { data, version: node.stat.version }
      : undefined;
  }

  async #readKey(zk: ZkClient, key: string): Promise<KeyNode> {
    const node = await zk.getData(this.#layout.keyPath(key));
    if (node === undefined) return { machineId: undefined, version: undefined };
    return { machineId: decodeKeyNode(node.data), version: node.stat.version };
  }

  /**
   * Writes the clock node and compares ZooKeeper's timestamp of the write with this host's clock
   * at the middle of the round trip. Returns ZooKeeper's clock, extrapolated on the monotonic one.
   */
  async #checkClock(zk: ZkClient): Promise<{ at(): number }> {
    const o = this.options;
    const path = this.#layout.clock;
    const write = async (): Promise<number> => {
      try {
        return statTimeMs((await zk.setData(path, Buffer.alloc(0), -1)).mtime);
      } catch (error) {
        if (!isZkError(error, ZK.NO_NODE)) throw error;
        await zk.create(path, Buffer.alloc(0)).catch((e: unknown) => {
          if (!isZkError(e, ZK.NODE_EXISTS)) throw e;
        });
        return statTimeMs((await zk.setData(path, Buffer.alloc(0), -1)).mtime);
      }
    };
    const before = o.clock();
    const mono = performance.now();
    const zkMs = await write();
    const after = o.clock();
    const rttMs = performance.now() - mono;
    const skewMs = Math.round((before + after) / 2 - zkMs);
    if (Math.abs(skewMs) > o.maxClockSkewMs + rttMs / 2) {
      throw new VestaError(
        'CLOCK_OUT_OF_SYNC',
        `this host's clock is ${skewMs} ms ${skewMs > 0 ? 'ahead of' : 'behind'} ZooKeeper's; more than the ${o.maxClockSkewMs} ms allowed`,
        { details: { skewMs, maxClockSkewMs: o.maxClockSkewMs } },
      );
    }
    const zkAtMono = zkMs + rttMs / 2;
    const base = mono;
    return { at: () => zkAtMono + (performance.now() - base) };
  }

  #fromCache(
    zk: ZkClient,
    key: string,
    request: MachineIdRequest,
    cause: unknown,
  ): ZooKeeperMachineIdLease {
    const o = this.options;
    const unavailable = (why: string): VestaError => {
      zk.close();
      return new VestaError(
        'ZOOKEEPER_UNAVAILABLE',
        `ZooKeeper at ${o.connect} is unreachable and ${why}`,
        { cause },
      );
    };
    if (!o.fallbackToCache) throw unavailable('fallbackToCache is off');
    if (this.#cache === undefined) throw unavailable('no stateDir holds a cached lease');
    const cached = this.#cache.read();
    if (cached === undefined || cached.key !== key || cached.root !== o.root)
      throw unavailable('the state dir holds no lease for this key');
    if (cached.machineId < request.range.min || cached.machineId > request.range.max) {
      throw unavailable(
        `the cached machine id ${cached.machineId} is outside ${request.range.min}-${request.range.max}`,
      );
    }
    // Nobody can have reclaimed the id before its mark aged past the reclaim delay.
    const validUntil = cached.confirmedAtMs + o.reclaimAfterMs - o.fenceAfterMs - o.maxClockSkewMs;
    const now = o.clock();
    if (now >= validUntil) {
      throw unavailable(
        `the cached lease (confirmed ${new Date(cached.confirmedAtMs).toISOString()}) is too old to be safe: the id may have been reclaimed`,
      );
    }
    const notBeforeMs = cached.markMs + unitMs(request.type);
    const gapMs = notBeforeMs - now;
    if (gapMs > o.maxClockWaitMs) {
      zk.close();
      throw new VestaError(
        'CLOCK_BEHIND_HIGH_WATER_MARK',
        `this host's clock is ${gapMs} ms behind the cached time mark of machine id ${cached.machineId}; more than the ${o.maxClockWaitMs} ms allowed to wait`,
        { details: { gapMs, markMs: cached.markMs, machineId: cached.machineId } },
      );
    }
    o.logger.warn(
      {
        machineId: cached.machineId,
        connect: o.connect,
        validUntil: new Date(validUntil).toISOString(),
      },
      'ZooKeeper is unreachable: starting on the machine id cached by the last good lease',
    );
    this.stats.fromCache++;
    return new ZooKeeperMachineIdLease({
      zk,
      layout: this.#layout,
      options: o,
      cache: this.#cache,
      machineId: cached.machineId,
      key,
      stableKey: true,
      instance: randomUUID(),
      era: cached.era,
      genMethod: request.genMethod,
      type: request.type,
      notBeforeMs,
      floorMarkMs: cached.markMs,
      version: undefined,
      ackMarkMs: validUntil,
      deadline: performance.now() + (validUntil - now),
    });
  }
}
