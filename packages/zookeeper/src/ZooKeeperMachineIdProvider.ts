import { holdingOf, LeaseProvider, type LeaseStore } from '@vesta/lease';
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
import { zkEraStore, type ZkEra } from './zk/zkEraStore.js';
import { zkHold } from './zk/zkHold.js';
import { zkJournal } from './zk/zkJournal.js';

/**
 * ZooKeeper as a lease store: a session per start, the id, live and key nodes under the root; a
 * round reads the key node, then the id and live children; a claim is one multi that creates the
 * live node (ephemeral: it goes with the session) and sets the id node at the version read. The
 * claim's written value is the id node's version after it. Ages are told on ZooKeeper's clock.
 */
function zooKeeperStore(o: ResolvedZooKeeperMachineIdOptions): LeaseStore<ZkEra, number> {
  const L = new ZkLayout(o.root);
  return {
    coordinator: 'ZooKeeper',
    files: 'zookeeper',
    address: o.connect,
    root: o.root,
    eraLogFields: { root: L.root },
    unavailable: 'ZOOKEEPER_UNAVAILABLE',
    pollMs: Math.min(250, o.sessionTimeoutMs / 4),
    startsFromCache: true,
    open(c) {
      const { zk, whenConnected } = ZkClient.open(o.connect, o);
      return {
        connect: () => whenConnected,
        prepare: async () => {
          await Promise.all([zk.mkdirp(L.ids), zk.mkdirp(L.live), zk.mkdirp(L.keys)]);
        },
        readClock: () => writeClockNode(zk, L),
        era: zkEraStore(zk, L),
        journal: zkJournal(() => zk, L, o.journalRetention),
        readRound: async (state, { era }, zkClock) => {
          if (zkClock === undefined) throw new Error('the clock check comes before a round');
          const read = await readClaimSnapshot(zk, L, {
            ...state,
            key: c.key,
            stableKey: c.stableKey,
            range: c.request.range,
            reclaimAfterMs: o.reclaimAfterMs,
            zkClock,
          });
          // A candidate with no record is claimed as new (its node created, not set).
          const previous = ({ machineId, record }: { machineId: number; record?: unknown }) =>
            record === undefined ? undefined : read.nodes.get(machineId);
          return {
            snapshot: read.snapshot,
            floorMarkMs: (candidate) => previous(candidate)?.data.markMs ?? 0,
            write: async (candidate, markMs) => {
              const node = previous(candidate);
              const won = await claimIdNode(zk, L, {
                era,
                machineId: candidate.machineId,
                data: encodeIdNode(holdingOf(c, markMs)),
                version: node?.version,
                key: c.key,
                instance: c.instance,
                keyNode: c.stableKey ? { version: read.keyVersion } : undefined,
              });
              return won ? (node === undefined ? 0 : node.version + 1) : undefined;
            },
          };
        },
        hold: ({ machineId, floorMarkMs }, from) =>
          zkHold({
            zk,
            layout: L,
            options: o,
            claimant: c,
            machineId,
            floorMarkMs,
            claimed:
              'claimed' in from
                ? { era: from.claimed.era.era, version: from.claimed.written }
                : undefined,
          }),
        close: () => zk.close(),
      };
    },
  };
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
export class ZooKeeperMachineIdProvider extends LeaseProvider<ZkEra, number> {
  /** Validates the options (INVALID_OPTIONS); connects only on {@link acquire}. */
  constructor(options: ZooKeeperMachineIdOptions) {
    const o = resolveZooKeeperMachineIdOptions(options);
    super(zooKeeperStore(o), o);
  }
}
