import { holdingOf, LeaseProvider, type LeaseStore } from '@vesta/lease';
import {
  zooKeeperOptions,
  type ResolvedZooKeeperMachineIdOptions,
  type ZooKeeperMachineIdOptions,
} from './ZooKeeperMachineIdOptions.js';
import { statTimeMs, unlessZk, ZK, ZkClient } from './zk/ZkClient.js';
import { zkHold } from './zk/zkHold.js';
import {
  decodeIdNode,
  decodeKeyNode,
  encodeJson,
  put,
  stamped,
  ZkTree,
  type ZkEra,
} from './zk/ZkTree.js';

/**
 * ZooKeeper as a lease store, a session per start; a claim is one multi: the era's token checked,
 * the live node created, the id node written at the version read, and the key node.
 */
function zooKeeperStore(o: ResolvedZooKeeperMachineIdOptions): LeaseStore<ZkEra, number> {
  const T = new ZkTree(o.root);
  return {
    coordinator: 'ZooKeeper',
    files: 'zookeeper',
    address: o.connect,
    root: o.root,
    eraLogFields: { root: T.root },
    unavailable: 'ZOOKEEPER_UNAVAILABLE',
    pollMs: Math.min(250, o.sessionTimeoutMs / 4),
    startsFromCache: true,
    open(c) {
      const { zk, whenConnected } = ZkClient.open(o.connect, o);
      const readNode = async (id: number) => {
        const node = await zk.getData(T.idPath(id));
        const data = node && decodeIdNode(node.data);
        return node && data ? [[id, { data, version: node.stat.version, node }] as const] : [];
      };
      return {
        connect: () => whenConnected,
        prepare: async () => {
          await Promise.all([zk.mkdirp(T.ids), zk.mkdirp(T.live), zk.mkdirp(T.keys)]);
        },
        readClock: () => T.writeClock(zk),
        era: T.eraStore(zk),
        journal: T.journal(() => zk, o.journalRetention),
        readRound: async ({ skip }, { era }, zkClock) => {
          if (zkClock === undefined) throw new Error('the clock check comes before a round');
          const keyNode = c.stableKey ? await zk.getData(T.keyPath(c.key)) : undefined;
          const keyId = keyNode && decodeKeyNode(keyNode.data)?.machineId;
          const ids = async (path: string) => new Set((await zk.getChildren(path)).map(Number));
          const [live, used] = await Promise.all([ids(T.live), ids(T.ids)]);
          const { min, max } = c.request.range;
          const toRead = [...used].filter(
            (id) => id >= min && id <= max && !live.has(id) && !skip.has(id),
          );
          if (keyId !== undefined && used.has(keyId)) toRead.push(keyId);
          const nodes = new Map((await Promise.all([...new Set(toRead)].map(readNode))).flat());
          const now = zkClock.at();
          // A live node without an id node (removed by hand) still marks its id as held.
          const rows = [...new Set([...used, ...live])].map((id) => {
            const n = nodes.get(id);
            const idleMs = n ? now - statTimeMs(n.node.stat.mtime) : 0;
            const { owner, markMs } = n?.data ?? {};
            return { machineId: id, live: live.has(id), owner, markMs, idleMs };
          });
          return {
            rows,
            ownId:
              keyId !== undefined && nodes.get(keyId)?.data.owner === c.key ? keyId : undefined,
            write: async ({ machineId, record }, markMs) => {
              // A candidate with no record is claimed as new (its node created, not set).
              const node = record === undefined ? undefined : nodes.get(machineId);
              const ops = [
                T.eraCheck(era),
                put(T.idPath(machineId), stamped(holdingOf(c, markMs)), node?.version),
                T.liveNode(machineId, c),
                ...(c.stableKey
                  ? [put(T.keyPath(c.key), encodeJson({ machineId }), keyNode?.stat.version)]
                  : []),
              ];
              const multi = zk.multi(ops).then(() => (node === undefined ? 0 : node.version + 1));
              return unlessZk(multi, undefined, ZK.NODE_EXISTS, ZK.BAD_VERSION, ZK.NO_NODE);
            },
          };
        },
        hold: (machineId) => zkHold(zk, T, o, machineId, c),
        close: () => zk.close(),
      };
    },
  };
}

/**
 * Leases machine ids from ZooKeeper: unique among live instances, the same id for the same key,
 * dead owners' ids taken over with their marks (see the package README).
 * @example
 * const ids = await createEmbeddedIdService({
 *   machineIdProvider: new ZooKeeperMachineIdProvider({ connect: 'zk1:2181,zk2:2181', key: 'orders-7' }),
 * });
 */
export class ZooKeeperMachineIdProvider extends LeaseProvider<ZkEra, number> {
  /** Validates the options (INVALID_OPTIONS); connects only on {@link acquire}. */
  constructor(options: ZooKeeperMachineIdOptions) {
    const o = zooKeeperOptions.resolve(options);
    super(zooKeeperStore(o), o);
  }
}
