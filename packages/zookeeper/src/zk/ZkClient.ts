import type { Socket } from 'node:net';
import { VestaError } from '@vesta/core';
import { withDeadline } from '@vesta/lease';
import zookeeper from 'node-zookeeper-client';
import type { Client, Stat } from 'node-zookeeper-client';

/** One operation of a multi: data empty and version -1 (any) unless given. */
export interface ZkOp {
  readonly op: 'create' | 'setData' | 'check' | 'remove';
  readonly path: string;
  readonly data?: Buffer;
  readonly version?: number | undefined;
  readonly ephemeral?: true;
}

/** The exception codes (`ZK.NO_NODE`...). */
export const ZK = zookeeper.Exception;

/** What `work` resolves to, or `otherwise` when it fails with a ZooKeeper exception of `codes`. */
export const unlessZk = <T, U>(work: Promise<T>, otherwise: U, ...codes: number[]) =>
  work.catch((error: unknown) => {
    if (error instanceof ZK && codes.includes(error.getCode())) return otherwise;
    throw error;
  });

/** A stat time (8 bytes, big-endian Unix ms, the server's clock). */
export const statTimeMs = (buffer: Buffer): number => Number(buffer.readBigInt64BE(0));

export const { CreateMode } = zookeeper;

const unavailable = (message: string, details: Record<string, unknown>) =>
  new VestaError('ZOOKEEPER_UNAVAILABLE', message, { details });

/**
 * node-zookeeper-client with promises and a deadline on every call, as it queues requests silently
 * while disconnected (a timed-out request may still run later: every write is versioned or a create).
 */
export class ZkClient {
  #closed = false;

  private constructor(
    readonly client: Client,
    readonly timeoutMs: number,
  ) {}

  /** Starts connecting; `whenConnected` fails with ZOOKEEPER_UNAVAILABLE after `connectTimeoutMs`. */
  static open(
    connect: string,
    o: Record<'sessionTimeoutMs' | 'connectTimeoutMs' | 'operationTimeoutMs', number>,
    session?: ReturnType<ZkClient['session']>,
  ): { zk: ZkClient; whenConnected: Promise<void> } {
    const client = zookeeper.createClient(connect, {
      sessionTimeout: o.sessionTimeoutMs,
      spinDelay: 200,
      retries: 0,
      ...(session && { sessionId: session.id, sessionPassword: session.password }),
    } as Partial<zookeeper.Option>);
    const { connectTimeoutMs } = o;
    const why = `ZooKeeper at ${connect} did not answer within ${connectTimeoutMs} ms`;
    const connected = new Promise<void>((resolve) => client.once('connected', () => resolve()));
    const whenConnected = withDeadline(connected, connectTimeoutMs, () =>
      unavailable(why, { connect, connectTimeoutMs }),
    );
    whenConnected.catch(() => undefined);
    client.connect();
    return { zk: new ZkClient(client, o.operationTimeoutMs), whenConnected };
  }

  get connected(): boolean {
    return this.client.getState() === zookeeper.State.SYNC_CONNECTED;
  }

  /** Moves the session to the next server: without a read timeout the client never leaves a silent one. */
  dropConnection(): void {
    const manager = (
      this.client as unknown as {
        connectionManager?: { socket?: Socket; connectTimeoutHandler?: NodeJS.Timeout | null };
      }
    ).connectionManager;
    // A socket dropped while connecting leaves its connect timer, which would cut the next one.
    if (manager?.connectTimeoutHandler) clearTimeout(manager.connectTimeoutHandler);
    manager?.socket?.destroy();
  }

  session(): { readonly id: Buffer; readonly password: Buffer } {
    return { id: this.client.getSessionId(), password: this.client.getSessionPassword() };
  }

  create = (path: string, data: Buffer, mode = CreateMode.PERSISTENT): Promise<string> =>
    this.#call((cb) => this.client.create(path, data, mode, cb), path);
  mkdirp = (path: string): Promise<string> =>
    this.#call((cb) => this.client.mkdirp(path, cb), path);
  /** The node, or undefined when it does not exist. */
  getData = (path: string): Promise<{ data: Buffer; stat: Stat } | undefined> =>
    unlessZk(
      this.#call(
        (cb) =>
          this.client.getData(path, (e, data, stat) => cb(e, { data: data ?? Buffer.of(), stat })),
        path,
      ),
      undefined,
      ZK.NO_NODE,
    );
  /** Writes `data` when the node is at `version` (-1: any). */
  setData = (path: string, data: Buffer, version: number): Promise<Stat> =>
    this.#call((cb) => this.client.setData(path, data, version, cb), path);
  exists = async (path: string): Promise<Stat | undefined> =>
    (await this.#call<Stat | null>((cb) => this.client.exists(path, cb), path)) ?? undefined;
  getChildren = (path: string): Promise<string[]> =>
    this.#call((cb) => this.client.getChildren(path, cb), path);
  /** The children of a folder that may not exist yet: none then. */
  childrenOf = (path: string): Promise<string[]> =>
    unlessZk(this.getChildren(path), [], ZK.NO_NODE);
  /** Removes a node at any version; one already gone is no failure. */
  removeIfPresent = (path: string): Promise<unknown> =>
    unlessZk(
      this.#call((cb) => this.client.remove(path, -1, cb), path),
      null,
      ZK.NO_NODE,
    );

  /** Runs the operations as one transaction: all of them or none. */
  async multi(ops: readonly ZkOp[]): Promise<void> {
    const tx = this.client.transaction();
    // node-zookeeper-client sends version 0 as -1, any version (alexguan/node-zookeeper-client#67):
    // each op's version is set again on the op it queued.
    const queued = (tx as unknown as { ops: { version?: number }[] }).ops;
    const { EPHEMERAL, PERSISTENT } = CreateMode;
    for (const { op, path, data = Buffer.of(), version = -1, ephemeral } of ops) {
      if (op === 'create') tx.create(path, data, ephemeral ? EPHEMERAL : PERSISTENT);
      else if (op === 'setData') tx.setData(path, data, version);
      else tx[op](path, version);
      const last = queued.at(-1);
      if (op !== 'create' && last !== undefined) last.version = version;
    }
    await this.#call((cb) => tx.commit(cb), ops[0]?.path ?? '/');
  }

  /** Closes the session (its ephemeral nodes go at once). Idempotent. */
  close(): void {
    if (!this.#closed) this.client.close();
    this.#closed = true;
  }

  #call<T>(start: (cb: (error: unknown, value?: T) => void) => void, path: string): Promise<T> {
    const { timeoutMs } = this;
    const request = new Promise<T>((resolve, reject) =>
      start((error, value) => (error ? reject(error) : resolve(value as T))),
    );
    return withDeadline(request, timeoutMs, () =>
      unavailable(`ZooKeeper did not answer within ${timeoutMs} ms (${path})`, { path, timeoutMs }),
    );
  }
}
