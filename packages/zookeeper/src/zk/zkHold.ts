import { VestaError } from '@vesta/core';
import { storeHold, type LeaseHold, type StoreHoldStart } from '@vesta/lease';
import type { ResolvedZooKeeperMachineIdOptions } from '../ZooKeeperMachineIdOptions.js';
import { isZkError, ZK, ZkClient, type ZkOp } from './ZkClient.js';
import { decodeEraNode, decodeIdNode, encodeJson, stamped, type ZkTree } from './ZkTree.js';

/**
 * The client a hold works through, replaced after a session expiry (a new session: `onExpired`
 * has the hold confirm its id again) and after being disconnected for longer than
 * `connectTimeoutMs` (the same session resumed, see {@link reopenIfStuck}).
 */
export class ZkLeaseConnection {
  #zk: ZkClient;
  #closed = false;
  #disconnectedSince: number | undefined;

  constructor(
    zk: ZkClient,
    private readonly o: ResolvedZooKeeperMachineIdOptions,
    private readonly machineId: number,
    private readonly onExpired: () => void,
  ) {
    this.#zk = zk;
    this.#watch(zk);
  }

  get zk(): ZkClient {
    return this.#zk;
  }

  /** Whether the client is connected; also ends the count of a disconnection. */
  connected(): boolean {
    if (!this.#zk.connected) return false;
    this.#disconnectedSince = undefined;
    return true;
  }

  /**
   * node-zookeeper-client can stay disconnected for good after its server restarts: a client
   * disconnected for longer than `connectTimeoutMs` is replaced by one resuming the same session
   * (if the session is gone, the expiry path confirms the id again). Called on each turn while
   * disconnected.
   */
  reopenIfStuck(): void {
    const now = this.o.time.monotonic();
    this.#disconnectedSince ??= now;
    if (now - this.#disconnectedSince < this.o.connectTimeoutMs) return;
    this.#disconnectedSince = now;
    const session = this.#zk.session();
    this.#zk.close();
    this.#replace(ZkClient.open(this.o.connect, this.o, session).zk);
    this.o.logger.warn(
      { machineId: this.machineId },
      'ZooKeeper client disconnected too long; reconnecting with the same session',
    );
  }

  /**
   * After a renewal that failed or hung: the server may have gone silent after the handshake,
   * which node-zookeeper-client never notices. Dropping the connection moves it to the next server.
   */
  leaveServer(): void {
    if (!this.#closed) this.#zk.dropConnection();
  }

  close(): void {
    this.#closed = true;
    this.#zk.close();
  }

  #replace(zk: ZkClient): void {
    this.#zk = zk;
    this.#watch(zk);
  }

  #watch(zk: ZkClient): void {
    zk.client.on('expired', () => {
      if (zk !== this.#zk || this.#closed) return;
      this.o.logger.warn(
        { machineId: this.machineId },
        'ZooKeeper session expired; reconnecting to re-confirm the machine id',
      );
      this.onExpired();
      zk.close();
      this.#replace(ZkClient.open(this.o.connect, this.o).zk);
    });
  }
}

/** The connection of each ZooKeeper hold, for the test hooks (`testing/leaseControl.ts`). */
export const zkHoldConnections = new WeakMap<LeaseHold, ZkLeaseConnection>();

/**
 * A machine id held through ZooKeeper: each turn writes the mark at the version last written,
 * under the era's token; a take-back (re)creates the live node. A turn while disconnected is
 * missed (and a client stuck so is replaced).
 */
export function zkHold(
  zk: ZkClient,
  T: ZkTree,
  o: ResolvedZooKeeperMachineIdOptions,
  machineId: number,
  start: StoreHoldStart<number>,
): LeaseHold {
  const c = start.claimant;
  const idPath = T.idPath(machineId);
  const livePath = T.livePath(machineId);
  let lapsed = false;
  /** Whether this session's own live node stands (read with the record). */
  let ownLive = false;
  const conn = new ZkLeaseConnection(zk, o, machineId, () => (lapsed = true));
  const connected = (): ZkClient => {
    if (conn.connected()) return conn.zk;
    conn.reopenIfStuck();
    throw new VestaError('ZOOKEEPER_UNAVAILABLE', 'the ZooKeeper client is disconnected');
  };
  const write = (
    client: ZkClient,
    era: string,
    holding: object,
    version: number,
    ...more: ZkOp[]
  ) =>
    client.multi([
      T.eraCheck(era),
      { op: 'setData', path: idPath, data: stamped(holding), version },
      ...more,
    ]);
  const hold = storeHold<number>(
    {
      lapsed: () => lapsed,
      renew: async (era, holding, version) => {
        try {
          await write(connected(), era, holding, version);
          return version + 1;
        } catch (error) {
          if (!isZkError(error, ZK.BAD_VERSION, ZK.NO_NODE)) throw error;
          return 'conflict';
        }
      },
      read: async () => {
        const client = connected();
        const [eraNode, node, live] = await Promise.all([
          client.getData(T.era),
          client.getData(idPath),
          client.exists(livePath),
        ]);
        const era = eraNode && decodeEraNode(eraNode.data);
        const found = node && decodeIdNode(node.data);
        ownLive = live?.ephemeralOwner.toString('hex') === client.sessionId;
        // The era node alone could be a new tree's: its token must stand too.
        const stands =
          era !== undefined && (await client.exists(T.eraToken(era.era))) !== undefined;
        return {
          era: stands ? era : undefined,
          record:
            node === undefined || found === undefined
              ? undefined
              : { ...found, live: live !== undefined && !ownLive, version: node.stat.version },
        };
      },
      retake: async (era, holding, version) => {
        const data = encodeJson({ owner: c.key, instance: c.instance });
        const liveNode: ZkOp[] = ownLive
          ? []
          : [{ op: 'create', path: livePath, data, ephemeral: true }];
        await write(connected(), era, holding, version, ...liveNode);
        lapsed = false;
        return version + 1;
      },
      release: async (era, holding, version) => {
        if (lapsed || !conn.zk.connected) return false;
        await write(conn.zk, era, holding, version, { op: 'remove', path: livePath, version: -1 });
        return true;
      },
      close: () => conn.close(),
      reconnect: () => conn.leaveServer(),
      quiet: 'ZOOKEEPER_UNAVAILABLE',
      journal: T.journal(() => conn.zk, o.journalRetention),
    },
    start,
  );
  zkHoldConnections.set(hold, conn);
  return hold;
}
