import {
  allocationOf,
  defineAdminOptions,
  LeaseAdmin,
  listAllocations,
  type AdminOptionsOf,
  type AdminStore,
  type LeaseAllocation,
  type ReleaseOutcome,
} from '@vesta/lease';
import type { Stat } from 'node-zookeeper-client';
import { withZooKeeperUrl, zooKeeperMachineIdOptions } from './ZooKeeperMachineIdOptions.js';
import { decodeIdNode, encodeJson, type IdNodeData } from './zk/IdNodeData.js';
import {
  isZkError,
  sessionHex,
  statTimeMs,
  ZK,
  ZkClient,
  type ZkNode,
  type ZkOp,
} from './zk/ZkClient.js';
import { ZkLayout } from './zk/ZkLayout.js';
import { initZkTree } from './zk/initZkTree.js';
import { readZkJournal } from './zk/zkJournal.js';
import { writeClockNode } from './zk/writeClockNode.js';

/** The declaration of {@link ZooKeeperAdminOptions}: the provider's connection, a deadline. */
const zooKeeperAdminOptions = defineAdminOptions('ZooKeeper', zooKeeperMachineIdOptions.schema, [
  'connect',
  'url',
  'root',
]);

/** An admin's session timeout: the provider's default (an admin call is short; none is given). */
const SESSION_TIMEOUT_MS = zooKeeperMachineIdOptions.schema.shape.sessionTimeoutMs.def.defaultValue;

/** Options of {@link ZooKeeperAdmin}: the provider's `connect` and `root`, and `timeoutMs`. */
export type ZooKeeperAdminOptions = AdminOptionsOf<typeof zooKeeperAdminOptions>;

/**
 * One machine id's allocation, as {@link ZooKeeperAdmin.list} reports it: `alive` when a live
 * session holds it, `ageMs` on ZooKeeper's clock.
 */
export interface MachineIdAllocation extends LeaseAllocation {
  /** The holding session (hex), when alive. */
  readonly session: string | undefined;
}

/** An id node's allocation as read (age 0 unless given). */
function allocationOfNode(
  machineId: number,
  data: IdNodeData | undefined,
  live: Stat | undefined,
  ageMs = 0,
): MachineIdAllocation {
  const session = live === undefined ? undefined : sessionHex(live.ephemeralOwner);
  return allocationOf(machineId, data, { alive: live !== undefined, session, ageMs });
}

/** A ZooKeeper client opened for one admin call, and when it is connected. */
type ZkConnection = ReturnType<typeof ZkClient.open>;

/** ZooKeeper as its admin reaches it: a session of its own per call, the tree under the root. */
function zooKeeperAdminStore(
  o: ReturnType<typeof zooKeeperAdminOptions.resolve> & { readonly connect: string },
): AdminStore<MachineIdAllocation, ZkConnection> {
  const L = new ZkLayout(o.root);
  const read = async (zk: ZkClient, machineId: number) => {
    const [node, live] = await Promise.all([
      zk.getData(L.idPath(machineId)),
      zk.exists(L.livePath(machineId)),
    ]);
    return node === undefined ? undefined : { node, data: decodeIdNode(node.data), live };
  };
  return {
    store: 'ZooKeeper',
    code: 'ZOOKEEPER_UNAVAILABLE',
    where: `under ${L.root}`,
    namespace: `ZooKeeper under ${L.root}`,
    open: () =>
      ZkClient.open(o.connect, {
        sessionTimeoutMs: SESSION_TIMEOUT_MS,
        connectTimeoutMs: o.timeoutMs,
        operationTimeoutMs: o.timeoutMs,
      }),
    connect: async ({ whenConnected }) => {
      await whenConnected;
    },
    close: ({ zk }) => zk.close(),
    list: async ({ zk }) => {
      const ids = await zk.childrenOf(L.ids);
      // This host's clock where there is no clock node: the admin never creates one.
      const now = await writeClockNode(zk, L, async () => Date.now());
      return listAllocations(ids, async (machineId) => {
        const found = await read(zk, machineId);
        if (found === undefined) return undefined;
        const { node, data, live } = found;
        return allocationOfNode(
          machineId,
          data,
          live,
          Math.max(0, now - statTimeMs(node.stat.mtime)),
        );
      });
    },
    read: async ({ zk }, machineId) => {
      const found = await read(zk, machineId);
      if (found === undefined) return undefined;
      const { node, data, live } = found;
      if (data === undefined) return 'unreadable';
      return {
        allocation: allocationOfNode(machineId, data, live),
        release: () => releaseOnce(zk, L, machineId, node, data, live),
      };
    },
    // In one transaction, only when the tree holds no era, id, live or key node.
    init: ({ zk }, era, limit) => initZkTree(zk, L, era, limit),
    history: ({ zk }) => readZkJournal(zk, L),
  };
}

/**
 * One release in one multi: the owner cleared at the version read, the live node (if any) and the
 * key node dropped; `raced` when a live holder raised its mark meanwhile (read again).
 */
async function releaseOnce(
  zk: ZkClient,
  L: ZkLayout,
  machineId: number,
  node: ZkNode,
  data: IdNodeData,
  live: Stat | undefined,
): Promise<ReleaseOutcome> {
  const ops: ZkOp[] = [
    {
      op: 'setData',
      path: L.idPath(machineId),
      data: encodeJson({ ...data, owner: null, instance: null }),
      version: node.stat.version,
    },
  ];
  if (live !== undefined) ops.push({ op: 'remove', path: L.livePath(machineId), version: -1 });
  if (data.owner !== null) {
    const keyNode = await zk.getData(L.keyPath(data.owner));
    if (keyNode !== undefined)
      ops.push({ op: 'remove', path: L.keyPath(data.owner), version: keyNode.stat.version });
  }
  try {
    await zk.multi(ops);
    return 'released';
  } catch (error) {
    if (isZkError(error, ZK.BAD_VERSION, ZK.NO_NODE)) return 'raced';
    throw error;
  }
}

/**
 * Operators' view of a fleet's allocations in ZooKeeper: list them (with the holding session of
 * a live id), release an id by hand, declare a tree new (see {@link LeaseAdmin}). Validates the
 * options (INVALID_OPTIONS); connects on each call.
 */
export class ZooKeeperAdmin extends LeaseAdmin<MachineIdAllocation, ZkConnection> {
  constructor(options: ZooKeeperAdminOptions) {
    const o = zooKeeperAdminOptions.resolve(withZooKeeperUrl(options, ['root']));
    super(zooKeeperAdminStore({ ...o, connect: o.connect as string }));
  }
}
