import type { Socket } from 'node:net';
import { VestaError } from '@vesta/core';
import { withDeadline } from '@vesta/lease';
import zookeeper from 'node-zookeeper-client';
import type { Client, Stat, State } from 'node-zookeeper-client';

/** A node read from ZooKeeper: its bytes and its stat. */
export interface ZkNode {
  readonly data: Buffer;
  readonly stat: Stat;
}

/** The session of a ZooKeeper client: its id and password. */
export interface ZkSession {
  readonly id: Buffer;
  readonly password: Buffer;
}

/** One operation of a multi (a ZooKeeper transaction). */
export type ZkOp =
  | {
      readonly op: 'create';
      readonly path: string;
      readonly data: Buffer;
      readonly ephemeral: boolean;
    }
  | {
      readonly op: 'setData';
      readonly path: string;
      readonly data: Buffer;
      readonly version: number;
    }
  | { readonly op: 'check'; readonly path: string; readonly version: number }
  | { readonly op: 'remove'; readonly path: string; readonly version: number };

/** How to reach ZooKeeper. */
export interface ZkClientOptions {
  readonly sessionTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly operationTimeoutMs: number;
}

/** The exception codes this package branches on. */
export const ZK = {
  NO_NODE: zookeeper.Exception.NO_NODE,
  NODE_EXISTS: zookeeper.Exception.NODE_EXISTS,
  BAD_VERSION: zookeeper.Exception.BAD_VERSION,
  NOT_EMPTY: zookeeper.Exception.NOT_EMPTY,
} as const;

/** Whether `error` is a ZooKeeper exception of one of `codes`. */
export function isZkError(error: unknown, ...codes: number[]): boolean {
  return error instanceof zookeeper.Exception && codes.includes(error.getCode());
}

/** A stat time (ctime, mtime: 8 bytes, big-endian Unix ms, the server's clock) as a number. */
export function statTimeMs(buffer: Buffer): number {
  return Number(buffer.readBigInt64BE(0));
}

/** The session that owns an ephemeral node, as hex. */
export function sessionHex(buffer: Buffer): string {
  return buffer.toString('hex');
}

/**
 * A promise face on node-zookeeper-client with a deadline on every call: the client queues
 * requests silently forever while it is disconnected, so each operation here fails with
 * ZOOKEEPER_UNAVAILABLE after `operationTimeoutMs` instead. (A timed-out request may still run
 * later; callers only use version-checked or create-if-absent writes, which stay safe.)
 */
export class ZkClient {
  readonly client: Client;
  readonly #options: ZkClientOptions;
  #closed = false;

  private constructor(client: Client, options: ZkClientOptions) {
    this.client = client;
    this.#options = options;
  }

  /**
   * Creates a client and starts connecting. `whenConnected` resolves once it is connected, or
   * fails with ZOOKEEPER_UNAVAILABLE after `connectTimeoutMs` (the client keeps trying).
   */
  static open(
    connect: string,
    options: ZkClientOptions,
    session?: ZkSession,
  ): { zk: ZkClient; whenConnected: Promise<void> } {
    const client = zookeeper.createClient(connect, {
      sessionTimeout: options.sessionTimeoutMs,
      spinDelay: 200,
      retries: 0,
      ...(session === undefined
        ? {}
        : { sessionId: session.id, sessionPassword: session.password }),
    } as Partial<zookeeper.Option>);
    const zk = new ZkClient(client, options);
    const whenConnected = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        client.removeListener('connected', onConnected);
        reject(
          new VestaError(
            'ZOOKEEPER_UNAVAILABLE',
            `ZooKeeper at ${connect} did not answer within ${options.connectTimeoutMs} ms`,
            {
              details: { connect, connectTimeoutMs: options.connectTimeoutMs },
            },
          ),
        );
      }, options.connectTimeoutMs);
      const onConnected = (): void => {
        clearTimeout(timer);
        resolve();
      };
      client.once('connected', onConnected);
    });
    whenConnected.catch(() => undefined);
    client.connect();
    return { zk, whenConnected };
  }

  get connected(): boolean {
    const state: State = this.client.getState();
    return state === zookeeper.State.SYNC_CONNECTED;
  }

  /**
   * Drops the connection to the current server, keeping the session: node-zookeeper-client then
   * connects to the next server of its list and resumes the session there (its own handling of a
   * closed socket; it has no read timeout, so it never leaves a server that went silent itself).
   */
  dropConnection(): void {
    const manager = (
      this.client as unknown as {
        connectionManager?: { socket?: Socket; connectTimeoutHandler?: NodeJS.Timeout | null };
      }
    ).connectionManager;
    if (manager === undefined) return;
    // A socket dropped while still connecting leaves its connect timer behind (the client clears
    // it only on connect or error), which would then cut the next, healthy connection.
    if (manager.connectTimeoutHandler) clearTimeout(manager.connectTimeoutHandler);
    manager.socket?.destroy();
  }

  /** The session id and password (to resume or, in tests, to expire the session). */
  session(): ZkSession {
    return { id: this.client.getSessionId(), password: this.client.getSessionPassword() };
  }

  get sessionId(): string {
    return this.client.getSessionId().toString('hex');
  }

  create(path: string, data: Buffer, ephemeral = false): Promise<string> {
    const mode = ephemeral ? zookeeper.CreateMode.EPHEMERAL : zookeeper.CreateMode.PERSISTENT;
    return this.#call(
      (cb: (e: unknown, p: string) => void) => this.client.create(path, data, mode, cb),
      path,
    );
  }

  /** Creates a persistent sequential node `prefix<counter>`; resolves to its path. */
  createSequential(prefix: string, data: Buffer): Promise<string> {
    return this.#call(
      (cb: (e: unknown, p: string) => void) =>
        this.client.create(prefix, data, zookeeper.CreateMode.PERSISTENT_SEQUENTIAL, cb),
      prefix,
    );
  }

  async mkdirp(path: string): Promise<void> {
    await this.#call((cb: (e: unknown, p: string) => void) => this.client.mkdirp(path, cb), path);
  }

  /** The node, or undefined when it does not exist. */
  async getData(path: string): Promise<ZkNode | undefined> {
    try {
      return await this.#call(
        (cb: (e: unknown, node: ZkNode) => void) =>
          this.client.getData(path, (error, data, stat) =>
            cb(error, { data: data ?? Buffer.alloc(0), stat }),
          ),
        path,
      );
    } catch (error) {
      if (isZkError(error, ZK.NO_NODE)) return undefined;
      throw error;
    }
  }

  /** Writes `data` when the node is at `version` (-1: any). */
  setData(path: string, data: Buffer, version: number): Promise<Stat> {
    return this.#call(
      (cb: (e: unknown, s: Stat) => void) => this.client.setData(path, data, version, cb),
      path,
    );
  }

  async exists(path: string): Promise<Stat | undefined> {
    const stat = await this.#call(
      (cb: (e: unknown, s: Stat) => void) => this.client.exists(path, cb),
      path,
    );
    return stat ?? undefined;
  }

  getChildren(path: string): Promise<string[]> {
    return this.#call(
      (cb: (e: unknown, c: string[]) => void) => this.client.getChildren(path, cb),
      path,
    );
  }

  /** The children of a folder that may not exist yet: none then. */
  async childrenOf(path: string): Promise<string[]> {
    try {
      return await this.getChildren(path);
    } catch (error) {
      if (isZkError(error, ZK.NO_NODE)) return [];
      throw error;
    }
  }

  /** Removes a node at any version; one already gone (a concurrent remover) is no failure. */
  async removeIfPresent(path: string): Promise<void> {
    try {
      await this.remove(path, -1);
    } catch (error) {
      if (!isZkError(error, ZK.NO_NODE)) throw error;
    }
  }

  async remove(path: string, version: number): Promise<void> {
    await this.#call<undefined>(
      (cb) => this.client.remove(path, version, (e) => cb(e, undefined)),
      path,
    );
  }

  /** Runs the operations as one transaction: all of them or none. */
  async multi(ops: readonly ZkOp[]): Promise<void> {
    const tx = this.client.transaction();
    // node-zookeeper-client turns version 0 into -1 (any version) in transactions
    // (alexguan/node-zookeeper-client#67): a check or write meant for version 0 would succeed
    // on any version. Each op's version is set again on the op it queued.
    const queued = (tx as unknown as { ops: { version?: number }[] }).ops;
    for (const op of ops) {
      switch (op.op) {
        case 'create':
          tx.create(
            op.path,
            op.data,
            op.ephemeral ? zookeeper.CreateMode.EPHEMERAL : zookeeper.CreateMode.PERSISTENT,
          );
          break;
        case 'setData':
          tx.setData(op.path, op.data, op.version);
          break;
        case 'check':
          tx.check(op.path, op.version);
          break;
        case 'remove':
          tx.remove(op.path, op.version);
          break;
      }
      const last = queued.at(-1);
      if (op.op !== 'create' && last !== undefined) last.version = op.version;
    }
    await this.#call<undefined>(
      (cb) => tx.commit((error) => cb(error, undefined)),
      ops[0]?.path ?? '/',
    );
  }

  /** Closes the session (its ephemeral nodes go at once). Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.client.close();
  }

  #call<T>(start: (cb: (error: unknown, value: T) => void) => void, path: string): Promise<T> {
    const request = new Promise<T>((resolve, reject) => {
      start((error, value) => {
        if (error !== null && error !== undefined) reject(error);
        else resolve(value);
      });
    });
    const timeoutMs = this.#options.operationTimeoutMs;
    return withDeadline(
      request,
      timeoutMs,
      () =>
        new VestaError(
          'ZOOKEEPER_UNAVAILABLE',
          `ZooKeeper did not answer within ${timeoutMs} ms (${path})`,
          { details: { path, timeoutMs } },
        ),
    );
  }
}
