import {
  defineAdminOptions,
  type CoordinatorAdminOptions,
  withAdminSession,
  type AdminSession,
  listAllocations,
  releaseAllocation,
  initLeaseStore,
  type LeaseAllocation,
  type LeaseStoreInit,
  type ReleaseOutcome,
} from '@vesta/lease';
import type { Stat } from 'node-zookeeper-client';
import {
  zooKeeperMachineIdOptions,
  type ZooKeeperMachineIdOptions,
} from './ZooKeeperMachineIdOptions.js';
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

/** The provider's options an admin connects with (their declarations and TSDoc are the provider's). */
const CONNECTION = { connect: true, root: true } as const;

/** The declaration of {@link ZooKeeperAdminOptions}: the provider's connection, a deadline. */
const zooKeeperAdminOptions = defineAdminOptions(
  'ZooKeeper',
  zooKeeperMachineIdOptions.schema.pick(CONNECTION).shape,
);

/** An admin's session timeout: the provider's default (an admin call is short; none is given). */
const SESSION_TIMEOUT_MS = zooKeeperMachineIdOptions.schema.shape.sessionTimeoutMs.def.defaultValue;

/** Options of {@link ZooKeeperAdmin}: the provider's connection options and `timeoutMs`. */
export type ZooKeeperAdminOptions = Pick<ZooKeeperMachineIdOptions, keyof typeof CONNECTION> &
  CoordinatorAdminOptions;

/**
 * One machine id's allocation, as {@link ZooKeeperAdmin.list} reports it: `alive` when a live
 * session holds it, `ageMs` on ZooKeeper's clock.
 */
export interface MachineIdAllocation extends LeaseAllocation {
  /** The holding session (hex), when alive. */
  readonly session: string | undefined;
}

/** An id node's allocation as read (age 0: `list` sets it). */
function allocationOf(
  machineId: number,
  data: Pick<IdNodeData, 'owner' | 'markMs' | 'host' | 'pid'>,
  live: Stat | undefined,
): MachineIdAllocation {
  return {
    machineId,
    owner: data.owner,
    alive: live !== undefined,
    session: live === undefined ? undefined : sessionHex(live.ephemeralOwner),
    markMs: data.markMs,
    ageMs: 0,
    host: data.host,
    pid: data.pid,
  };
}

/**
 * Operators' view of a fleet's allocations: list them, release an id by hand, declare a tree new.
 */
export class ZooKeeperAdmin {
  readonly #connect: string;
  readonly #layout: ZkLayout;
  readonly #timeoutMs: number;

  /** Validates the options (INVALID_OPTIONS); connects on each call. */
  constructor(options: ZooKeeperAdminOptions) {
    const o = zooKeeperAdminOptions.resolve(options);
    this.#connect = o.connect;
    this.#layout = new ZkLayout(o.root);
    this.#timeoutMs = o.timeoutMs;
  }

  /** Every allocated id under the root, in id order. */
  async list(): Promise<MachineIdAllocation[]> {
    return this.#with(async (zk) => {
      const ids = await zk.getChildren(this.#layout.ids).catch((e: unknown) => {
        if (isZkError(e, ZK.NO_NODE)) return [] as string[];
        throw e;
      });
      const now = await this.#zkNow(zk);
      return listAllocations(ids, async (machineId) => {
        const read = await this.#read(zk, machineId);
        if (read === undefined) return undefined;
        const { node, data, live } = read;
        return {
          ...allocationOf(machineId, data ?? { owner: null, markMs: 0 }, live),
          ageMs: Math.max(0, now - statTimeMs(node.stat.mtime)),
        };
      });
    });
  }

  /**
   * Releases an id: its owner is cleared (its time mark stays, so whoever takes it next issues
   * after it) and its key mapping removed. A live id is refused with INVALID_ARGUMENT unless
   * `force`, which also drops the live node: the holder then finds out and stops for good.
   */
  async release(
    machineId: number,
    options: { force?: boolean } = {},
  ): Promise<MachineIdAllocation> {
    return this.#with((zk) =>
      releaseAllocation(machineId, options, `under ${this.#layout.root}`, async () => {
        const read = await this.#read(zk, machineId);
        if (read === undefined) return undefined;
        const { node, data, live } = read;
        if (data === undefined) return 'unreadable';
        return {
          allocation: allocationOf(machineId, data, live),
          release: () => this.#releaseOnce(zk, machineId, node, data, live),
        };
      }),
    );
  }

  /**
   * Declares the tree under the root new (`vesta machine-ids init`): creates its allocation era
   * OPEN, so the first start takes an id at once instead of waiting out `eraWaitMs`; in one
   * transaction, and only when the tree holds no history (no era, no id, live or key node).
   * Only for a ZooKeeper known to be new: one that lost its data looks just as empty, while
   * holders of the lost tree may still be issuing (the era wait covers them). Errors:
   * COORDINATOR_NOT_NEW naming the nodes found.
   */
  async init(): Promise<LeaseStoreInit> {
    return this.#with((zk) =>
      initLeaseStore(`ZooKeeper under ${this.#layout.root}`, (era) =>
        initZkTree(zk, this.#layout, era),
      ),
    );
  }

  async #read(zk: ZkClient, machineId: number) {
    const [node, live] = await Promise.all([
      zk.getData(this.#layout.idPath(machineId)),
      zk.exists(this.#layout.livePath(machineId)),
    ]);
    return node === undefined ? undefined : { node, data: decodeIdNode(node.data), live };
  }

  async #releaseOnce(
    zk: ZkClient,
    machineId: number,
    node: ZkNode,
    data: IdNodeData,
    live: Stat | undefined,
  ): Promise<ReleaseOutcome> {
    const L = this.#layout;
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
      // A live holder raised its mark meanwhile (a version race): read and try again.
      if (isZkError(error, ZK.BAD_VERSION) || isZkError(error, ZK.NO_NODE)) return 'raced';
      throw error;
    }
  }

  async #zkNow(zk: ZkClient): Promise<number> {
    // A read-only probe: ZooKeeper's clock as of its last write of the clock node is not "now", so
    // list ages against a fresh write only when the clock node exists.
    try {
      return statTimeMs((await zk.setData(this.#layout.clock, Buffer.alloc(0), -1)).mtime);
    } catch (error) {
      if (isZkError(error, ZK.NO_NODE)) return Date.now();
      throw error;
    }
  }

  async #with<T>(work: (zk: ZkClient) => Promise<T>): Promise<T> {
    const session: AdminSession<ReturnType<typeof ZkClient.open>> = {
      store: 'ZooKeeper',
      code: 'ZOOKEEPER_UNAVAILABLE',
      open: () =>
        ZkClient.open(this.#connect, {
          sessionTimeoutMs: SESSION_TIMEOUT_MS,
          connectTimeoutMs: this.#timeoutMs,
          operationTimeoutMs: this.#timeoutMs,
        }),
      close: ({ zk }) => zk.close(),
    };
    return withAdminSession(session, async ({ zk, whenConnected }) => {
      await whenConnected;
      return work(zk);
    });
  }
}
