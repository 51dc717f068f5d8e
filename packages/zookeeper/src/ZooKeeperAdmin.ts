import { LeaseAdmin, listAllocations, type LeaseAllocation } from '@vesta/lease';
import {
  zooKeeperOptions,
  zooKeeperMachineIdOptions,
  type ZooKeeperAdminOptions,
} from './ZooKeeperMachineIdOptions.js';
import { statTimeMs, unlessZk, ZK, ZkClient, type ZkOp } from './zk/ZkClient.js';
import { encodeJson, put, ZkTree } from './zk/ZkTree.js';

export type { ZooKeeperAdminOptions };

/** One machine id's allocation: `alive` when a live session holds it, `ageMs` on ZooKeeper's clock. */
export interface MachineIdAllocation extends LeaseAllocation {
  /** The holding session (hex), when alive. */
  readonly session: string | undefined;
}

/** One id's row; `ageAt` (ZooKeeper's time) gives its age. */
async function readRow(T: ZkTree, zk: ZkClient, machineId: number, ageAt?: number) {
  const { node, data, live } = await T.readId(zk, machineId);
  if (node === undefined) return undefined;
  const ageMs = ageAt === undefined ? 0 : Math.max(0, ageAt - statTimeMs(node.stat.mtime));
  const session = live?.ephemeralOwner.toString('hex');
  return { machineId, node, record: data, alive: live !== undefined, ageMs, fields: { session } };
}

type Opened = ReturnType<typeof ZkClient.open>;
type Row = NonNullable<Awaited<ReturnType<typeof readRow>>>;

/** Operators' view of a fleet's allocations in ZooKeeper (see {@link LeaseAdmin}); connects on each call. */
export class ZooKeeperAdmin extends LeaseAdmin<MachineIdAllocation, Opened, Row> {
  constructor(options: ZooKeeperAdminOptions) {
    const o = zooKeeperOptions.resolveAdmin(options);
    const T = new ZkTree(o.root);
    // An admin call is short: the provider's default session timeout.
    const session = zooKeeperMachineIdOptions.schema.shape.sessionTimeoutMs.def.defaultValue;
    const timeouts = { ...o, sessionTimeoutMs: session };
    super({
      store: 'ZooKeeper',
      code: 'ZOOKEEPER_UNAVAILABLE',
      where: `under ${T.root}`,
      namespace: `ZooKeeper under ${T.root}`,
      open: () => ZkClient.open(o.connect, timeouts),
      connect: ({ whenConnected }) => whenConnected,
      close: ({ zk }) => zk.close(),
      list: async ({ zk }) => {
        const ids = await zk.childrenOf(T.ids);
        // The admin never creates a clock node: this host's clock where there is none.
        const now = await T.writeClock(zk, () => Date.now());
        return listAllocations(ids, (machineId) => readRow(T, zk, machineId, now));
      },
      read: ({ zk }, machineId) => readRow(T, zk, machineId),
      // One multi: the owner cleared at the version read, the live and key nodes dropped.
      release: async ({ zk }, { machineId, node, record, alive }) => {
        const { owner } = record;
        const keyNode = owner === null ? undefined : await zk.getData(T.keyPath(owner));
        const released = encodeJson({ ...record, owner: null, instance: null });
        const ops: ZkOp[] = [
          put(T.idPath(machineId), released, node.stat.version),
          ...(alive ? [{ op: 'remove' as const, path: T.livePath(machineId) }] : []),
          ...(keyNode && owner !== null
            ? [{ op: 'remove' as const, path: T.keyPath(owner), version: keyNode.stat.version }]
            : []),
        ];
        const multi = zk.multi(ops).then(() => 'released' as const);
        return unlessZk(multi, 'raced', ZK.BAD_VERSION, ZK.NO_NODE);
      },
      // A multi cannot compare "no children": it removes and recreates each folder (NOT_EMPTY or
      // NODE_EXISTS when anything appeared since the read).
      init: async ({ zk }, era, limit) => {
        const folders = [T.ids, T.live, T.keys];
        await zk.mkdirp(T.root);
        const paths = (await zk.getChildren(T.root)).sort().map((name) => `${T.root}/${name}`);
        const present = folders.filter((path) => paths.includes(path));
        const found = paths.filter((path) => !folders.includes(path) && path !== T.clock);
        const attempt = async () => {
          for (const path of present) {
            if (found.length >= limit) break;
            const inside = (await zk.getChildren(path)).sort().slice(0, limit);
            found.push(...inside.map((child) => `${path}/${child}`));
          }
          if (found.length > 0) return { found };
          await zk.multi([
            ...folders.flatMap((path): ZkOp[] => [
              ...(present.includes(path) ? [{ op: 'remove' as const, path }] : []),
              { op: 'create', path },
            ]),
            ...T.newEra(era, true),
          ]);
          return { created: true } as const;
        };
        return unlessZk(attempt(), 'raced' as const, ZK.NODE_EXISTS, ZK.NOT_EMPTY, ZK.NO_NODE);
      },
      history: ({ zk }) => T.readJournal(zk),
    });
  }
}
