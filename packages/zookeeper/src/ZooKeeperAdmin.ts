import { VestaError } from '@vesta/core';
import { checkConnectString, checkRoot } from './ZooKeeperMachineIdOptions.js';
import { decodeIdNode, encodeJson } from './zk/IdNodeData.js';
import { isZkError, sessionHex, statTimeMs, ZK, ZkClient, type ZkOp } from './zk/ZkClient.js';
import { ZkLayout } from './zk/ZkLayout.js';

/** Options of {@link ZooKeeperAdmin}. */
export interface ZooKeeperAdminOptions {
  /** ZooKeeper servers, `host:port[,host:port]`. */
  readonly connect: string;
  /** The fleet's root. @default '/vesta' */
  readonly root?: string;
  /** Deadline of the connection and of each request. @default 5000 */
  readonly timeoutMs?: number;
}

const RELEASE_ATTEMPTS = 5;

/** One machine id's allocation, as {@link ZooKeeperAdmin.list} reports it. */
export interface MachineIdAllocation {
  readonly machineId: number;
  /** The owner's key; null when released. */
  readonly owner: string | null;
  /** Whether a live session holds it now. */
  readonly alive: boolean;
  /** The holding session (hex), when alive. */
  readonly session: string | undefined;
  /** The last published time mark (Unix ms). */
  readonly markMs: number;
  /** Milliseconds since the owner last raised the mark (ZooKeeper's clock). */
  readonly ageMs: number;
  readonly host: string | undefined;
  readonly pid: number | undefined;
}

/** Operators' view of a fleet's allocations: list them, release an id by hand. */
export class ZooKeeperAdmin {
  readonly #connect: string;
  readonly #layout: ZkLayout;
  readonly #timeoutMs: number;

  constructor(options: ZooKeeperAdminOptions) {
    this.#connect = checkConnectString(options.connect);
    this.#layout = new ZkLayout(checkRoot(options.root ?? '/vesta'));
    const timeoutMs = options.timeoutMs ?? 5000;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
      throw new VestaError(
        'INVALID_OPTIONS',
        `timeoutMs must be a positive whole number, got ${String(timeoutMs)}`,
      );
    }
    this.#timeoutMs = timeoutMs;
  }

  /** Every allocated id under the root, in id order. */
  async list(): Promise<MachineIdAllocation[]> {
    return this.#with(async (zk) => {
      const L = this.#layout;
      const ids = await zk.getChildren(L.ids).catch((e: unknown) => {
        if (isZkError(e, ZK.NO_NODE)) return [] as string[];
        throw e;
      });
      const now = await this.#zkNow(zk);
      const rows = await Promise.all(
        ids
          .map(Number)
          .filter(Number.isInteger)
          .map(async (machineId): Promise<MachineIdAllocation | undefined> => {
            const [node, live] = await Promise.all([
              zk.getData(L.idPath(machineId)),
              zk.exists(L.livePath(machineId)),
            ]);
            if (node === undefined) return undefined;
            const data = decodeIdNode(node.data);
            return {
              machineId,
              owner: data?.owner ?? null,
              alive: live !== undefined,
              session: live === undefined ? undefined : sessionHex(live.ephemeralOwner),
              markMs: data?.markMs ?? 0,
              ageMs: Math.max(0, now - statTimeMs(node.stat.mtime)),
              host: data?.host,
              pid: data?.pid,
            };
          }),
      );
      return rows
        .filter((r): r is MachineIdAllocation => r !== undefined)
        .sort((a, b) => a.machineId - b.machineId);
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
    if (!Number.isInteger(machineId) || machineId < 0 || machineId > 1023) {
      throw new VestaError(
        'INVALID_ARGUMENT',
        `machine id must be a whole number from 0 to 1023, got ${String(machineId)}`,
      );
    }
    return this.#with(async (zk) => {
      // A live holder raises its mark meanwhile (a version race): read and try again, a few times.
      let raced: unknown;
      for (let attempt = 0; attempt < RELEASE_ATTEMPTS; attempt++) {
        const outcome = await this.#releaseOnce(zk, machineId, options);
        if (!('raced' in outcome)) return outcome;
        raced = outcome.raced;
      }
      throw new VestaError(
        'INVALID_ARGUMENT',
        `machine id ${machineId} changed while being released; try again`,
        { cause: raced },
      );
    });
  }

  async #releaseOnce(
    zk: ZkClient,
    machineId: number,
    options: { force?: boolean },
  ): Promise<MachineIdAllocation | { raced: unknown }> {
    {
      const L = this.#layout;
      const node = await zk.getData(L.idPath(machineId));
      if (node === undefined)
        throw new VestaError(
          'NOT_FOUND',
          `machine id ${machineId} is not allocated under ${L.root}`,
        );
      const data = decodeIdNode(node.data);
      if (data === undefined)
        throw new VestaError(
          'INVALID_ARGUMENT',
          `machine id ${machineId} holds data this tool cannot read; refusing to touch it`,
        );
      const live = await zk.exists(L.livePath(machineId));
      if (live !== undefined && options.force !== true) {
        throw new VestaError(
          'INVALID_ARGUMENT',
          `machine id ${machineId} is held by a live instance (${data.owner ?? 'unknown'}); use --force to take it away`,
        );
      }
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
      } catch (error) {
        if (isZkError(error, ZK.BAD_VERSION) || isZkError(error, ZK.NO_NODE)) {
          return { raced: error };
        }
        throw error;
      }
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
    const { zk, whenConnected } = ZkClient.open(this.#connect, {
      sessionTimeoutMs: 10_000,
      connectTimeoutMs: this.#timeoutMs,
      operationTimeoutMs: this.#timeoutMs,
    });
    try {
      await whenConnected;
      return await work(zk);
    } catch (error) {
      if (VestaError.is(error)) throw error;
      throw new VestaError('ZOOKEEPER_UNAVAILABLE', `ZooKeeper request failed: ${String(error)}`, {
        cause: error,
      });
    } finally {
      zk.close();
    }
  }
}
