import type { MachineIdProvider, MachineIdRequest } from '@vesta/core';
import {
  enterLeaseEra,
  holdingOf,
  LeaseClaimer,
  type ClaimSnapshot,
  type CoordinatorClock,
  type LeaseClaimant,
  type LeaseClaimRound,
  type LeaseClaimStats,
  type LeaseOpening,
  eraWaitLog,
} from '@vesta/lease';
import { ZooKeeperMachineIdLease } from './ZooKeeperMachineIdLease.js';
import {
  resolveZooKeeperMachineIdOptions,
  type ResolvedZooKeeperMachineIdOptions,
  type ZooKeeperMachineIdOptions,
} from './ZooKeeperMachineIdOptions.js';
import { claimIdNode } from './zk/claimIdNode.js';
import { encodeIdNode } from './zk/IdNodeData.js';
import { readClaimSnapshot } from './zk/readClaimSnapshot.js';
import { writeClockNode } from './zk/writeClockNode.js';
import { ZkClient } from './zk/ZkClient.js';
import { ZkLayout } from './zk/ZkLayout.js';
import { zkEraStore } from './zk/zkEraStore.js';

/** What this provider's acquisitions did: a read-only snapshot (metrics, figures). */
export type ZooKeeperMachineIdStats = LeaseClaimStats;

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
  readonly #layout: ZkLayout;
  readonly #claimer: LeaseClaimer;

  /** Validates the options (INVALID_OPTIONS); connects only on {@link acquire}. */
  constructor(options: ZooKeeperMachineIdOptions) {
    const o = resolveZooKeeperMachineIdOptions(options);
    this.#options = o;
    this.#layout = new ZkLayout(o.root);
    this.#claimer = new LeaseClaimer({
      options: o,
      files: 'zookeeper',
      coordinator: 'ZooKeeper',
      address: o.connect,
      root: o.root,
      unavailable: 'ZOOKEEPER_UNAVAILABLE',
    });
  }

  /** What this provider's acquisitions did so far (a frozen snapshot). */
  get stats(): ZooKeeperMachineIdStats {
    return this.#claimer.stats;
  }

  /**
   * The store round trips this provider's claims cost so far: each claim round's read and each
   * claim write (connecting, the clock check and the era are outside the count).
   */
  get roundTrips(): number {
    return this.#claimer.roundTrips;
  }

  async acquire(request: MachineIdRequest): Promise<ZooKeeperMachineIdLease> {
    const o = this.#options;
    const L = this.#layout;
    const c = this.#claimer.claimant(request);
    const { zk, whenConnected } = ZkClient.open(o.connect, o);
    try {
      await whenConnected;
    } catch (cause) {
      return this.#claimer.startFromCache(
        c,
        cause,
        () => zk.close(),
        (cached, opening, holder) => this.#lease(zk, holder, opening, cached.era, undefined),
      );
    }
    try {
      await Promise.all([zk.mkdirp(L.ids), zk.mkdirp(L.live), zk.mkdirp(L.keys)]);
      const zkClock = await this.#claimer.checkClock(() => writeClockNode(zk, L));
      const pollMs = Math.min(250, o.sessionTimeoutMs / 4);
      // Every round enters the era anew: a claim that lost to a data loss (the era's token gone)
      // waits for the new era.
      return await this.#claimer.claim(c, pollMs, async (state) => {
        const { era } = await enterLeaseEra(
          zkEraStore(zk, L),
          o.eraWaitMs,
          o.time,
          eraWaitLog(o.logger, 'ZooKeeper', { root: L.root }),
        );
        return this.#round(zk, c, era, zkClock, state);
      });
    } catch (error) {
      zk.close();
      throw this.#claimer.failure(error);
    }
  }

  /** One claim round: the key, live and used ids, and how to claim one. */
  async #round(
    zk: ZkClient,
    c: LeaseClaimant,
    era: string,
    zkClock: CoordinatorClock,
    state: Pick<ClaimSnapshot, 'skip' | 'ownerWaitOver'>,
  ): Promise<LeaseClaimRound<ZooKeeperMachineIdLease>> {
    const read = await readClaimSnapshot(zk, this.#layout, {
      ...state,
      key: c.key,
      stableKey: c.stableKey,
      range: c.request.range,
      reclaimAfterMs: this.#options.reclaimAfterMs,
      zkClock,
    });
    return {
      snapshot: read.snapshot,
      take: (candidate) => {
        const { machineId } = candidate;
        const previous = candidate.record === undefined ? undefined : read.nodes.get(machineId);
        return this.#claimer.takeWithFence({
          machineId,
          floorMarkMs: previous?.data.markMs ?? 0,
          type: c.request.type,
          write: async (markMs) => {
            const won = await claimIdNode(zk, this.#layout, {
              era,
              machineId,
              data: encodeIdNode(holdingOf(c, markMs)),
              version: previous?.version,
              key: c.key,
              instance: c.instance,
              keyNode: c.stableKey ? { version: read.keyVersion } : undefined,
            });
            return won ? true : undefined;
          },
          lease: (_won, opening) =>
            this.#lease(zk, c, opening, era, previous === undefined ? 0 : previous.version + 1),
        });
      },
    };
  }

  #lease(
    zk: ZkClient,
    c: LeaseClaimant,
    opening: LeaseOpening,
    era: string | undefined,
    version: number | undefined,
  ): ZooKeeperMachineIdLease {
    return new ZooKeeperMachineIdLease({
      ...opening,
      zk,
      layout: this.#layout,
      options: this.#options,
      cache: this.#claimer.cache,
      claimant: c,
      era,
      version,
    });
  }
}
