import type { Logger, TimeSource } from '@vesta/core';
import { ZkClient, type ZkClientOptions } from './ZkClient.js';

/** How a lease's connection is kept: the client options, where to log, which clock. */
export interface ZkLeaseConnectionOptions extends ZkClientOptions {
  readonly connect: string;
  readonly logger: Logger;
  readonly time: TimeSource;
}

/**
 * The ZooKeeper client a lease works through, replaced when it can no longer serve: after a
 * session expiry (a new session; the lease must re-confirm its id, `onExpired`) and after being
 * disconnected for longer than `connectTimeoutMs` (the same session resumed; see
 * {@link reopenIfStuck}).
 */
export class ZkLeaseConnection {
  readonly #o: ZkLeaseConnectionOptions;
  readonly #machineId: number;
  readonly #onExpired: () => void;
  #zk: ZkClient;
  #closed = false;
  /** Since when (monotonic ms) the client has been disconnected, while it is. */
  #disconnectedSince: number | undefined;

  constructor(
    zk: ZkClient,
    options: ZkLeaseConnectionOptions,
    machineId: number,
    onExpired: () => void,
  ) {
    this.#zk = zk;
    this.#o = options;
    this.#machineId = machineId;
    this.#onExpired = onExpired;
    this.#watch(zk);
  }

  /** The current client. */
  get zk(): ZkClient {
    return this.#zk;
  }

  /** Whether the current client is connected; also ends the count of a disconnection. */
  connected(): boolean {
    if (!this.#zk.connected) return false;
    this.#disconnectedSince = undefined;
    return true;
  }

  /**
   * node-zookeeper-client can stay disconnected for good after its server restarts (seen here:
   * a SIGKILLed ZooKeeper back within seconds, the clients never reconnecting). A client
   * disconnected for longer than `connectTimeoutMs` is replaced by a new one that resumes the
   * same session, so the live node stays ours; if the session is gone, the expiry path
   * re-confirms. Called on each renewal turn while disconnected.
   */
  reopenIfStuck(): void {
    const now = this.#o.time.monotonic();
    if (this.#disconnectedSince === undefined) {
      this.#disconnectedSince = now;
      return;
    }
    if (now - this.#disconnectedSince < this.#o.connectTimeoutMs) return;
    this.#disconnectedSince = now;
    const stuck = this.#zk;
    const session = stuck.session();
    stuck.close();
    this.#replace(ZkClient.open(this.#o.connect, this.#o, session).zk);
    this.#o.logger.warn(
      { machineId: this.#machineId },
      'ZooKeeper client disconnected too long; reconnecting with the same session',
    );
  }

  /**
   * After a renewal that failed or hung: the server the client talks to (or waits on for its
   * handshake) may have gone silent, which node-zookeeper-client never notices: it has no read
   * timeout, and it clears its connect timeout once TCP connects, so a server that takes the
   * connection and answers nothing (paused, partitioned after the handshake) holds it for good.
   * The connection is dropped: the client goes on to the next server of the connection string
   * and resumes the same session there, so the live node stays ours.
   */
  leaveServer(): void {
    if (this.#closed) return;
    this.#zk.dropConnection();
  }

  /** Closes the client for good (its session's ephemeral nodes go). */
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
      this.#o.logger.warn(
        { machineId: this.#machineId },
        'ZooKeeper session expired; reconnecting to re-confirm the machine id',
      );
      this.#onExpired();
      zk.close();
      this.#replace(ZkClient.open(this.#o.connect, this.#o).zk);
    });
  }
}
