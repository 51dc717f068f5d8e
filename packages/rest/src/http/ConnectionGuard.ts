import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpHandler } from './createRestHandlers.js';

type Limit = 'maxConnections' | 'maxPipelinedRequests' | 'maxRequestsInFlight';
type ConnectionLimits = Readonly<
  Record<Limit | 'headersTimeoutMs' | 'requestTimeoutMs' | 'checkIntervalMs', number>
>;

interface GuardedHandlers {
  readonly serve: HttpHandler;
  /** Answers 503 OVERLOADED. */
  readonly overloaded: (res: ServerResponse) => void;
  /** The raw answer of a connection refused because every connection is being served. */
  readonly refusedConnection: string;
}

interface Entry {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly connection: Connection;
  /** In flight while its answer is open, or its handler's work runs (even with the client gone). */
  answering: boolean;
  working: boolean;
}

interface Connection {
  readonly socket: Socket;
  /** When it last had nothing in progress (or connected). */
  since: number;
  /** Requests parsed and not yet answered (the active one and the queue). */
  pending: number;
  active: Entry | undefined;
  activeSince: number;
  readonly queue: Entry[];
  /** A raw answer to end with once every pending request is answered (a refusal after them). */
  closeWith: string | undefined;
  closed: boolean;
}

const ENTRY = Symbol('vesta.rest.entry');
type Tagged = ServerResponse & { [ENTRY]?: Entry };

function endWith(socket: Socket, raw: string): void {
  if (socket.destroyed || socket.writableEnded) return;
  socket.write(raw);
  socket.destroySoon();
}

/** Once cut, node's parser stops at the next head (-1 from its undocumented head callback). */
function stopParsingWhenClosed(socket: Socket, connection: Connection): void {
  const parser = (socket as Socket & { parser?: { onIncoming?: unknown } }).parser;
  const onIncoming = parser?.onIncoming;
  if (parser === undefined || typeof onIncoming !== 'function') return;
  parser.onIncoming = (...args: unknown[]): unknown =>
    connection.closed ? -1 : (onIncoming as (...a: unknown[]) => unknown)(...args);
}

/**
 * Holds the server to the README's "Limits": at `maxConnections` a newcomer closes the longest-idle
 * connection; answers go out one at a time per connection; beyond `maxRequestsInFlight`, OVERLOADED.
 */
export class ConnectionGuard {
  readonly #limits: ConnectionLimits;
  readonly #handlers: GuardedHandlers;
  readonly #all = new Map<Socket, Connection>();
  /** Connections with nothing in progress, the longest waiting first. */
  readonly #idle = new Map<Socket, Connection>();
  #inFlight = 0;
  #sweep: NodeJS.Timeout | undefined;
  #draining: (() => void) | undefined;
  readonly #onResponseClose: (this: ServerResponse) => void;

  constructor(limits: ConnectionLimits, handlers: GuardedHandlers) {
    this.#limits = limits;
    this.#handlers = handlers;
    const finished = (entry: Entry): void => this.#finished(entry);
    // One listener for every response, not a closure per request.
    this.#onResponseClose = function (this: Tagged): void {
      const entry = this[ENTRY];
      if (entry !== undefined) finished(entry);
    };
  }

  attach(server: Server): void {
    server.on('connection', (socket: Socket) => this.#onConnection(socket));
    server.once('listening', () => {
      this.#sweep = setInterval(() => this.#check(), this.#limits.checkIntervalMs).unref();
    });
    server.once('close', () => clearInterval(this.#sweep));
  }

  onRequest(req: IncomingMessage, res: ServerResponse): void {
    const connection = this.#all.get(req.socket);
    if (connection === undefined || connection.closed) return;
    if (++connection.pending === 1) this.#idle.delete(connection.socket);
    if (connection.pending > 1 + this.#limits.maxPipelinedRequests) return this.#drop(connection);
    const entry: Entry = { req, res, connection, answering: false, working: false };
    (res as Tagged)[ENTRY] = entry;
    res.once('close', this.#onResponseClose);
    if (connection.active === undefined) {
      this.#start(connection, entry);
    } else {
      connection.queue.push(entry);
      // Back-pressure: read no more of a connection whose answers wait.
      if (connection.queue.length === 1) connection.socket.pause();
    }
  }

  /** Ends `socket`'s connection with `raw` once the requests it already sent are answered. */
  closeAfterPending(socket: Socket, raw: string): void {
    const connection = this.#all.get(socket);
    if (connection === undefined || connection.pending === 0) return endWith(socket, raw);
    if (connection.closeWith !== undefined) return;
    connection.closeWith = raw;
    socket.pause();
  }

  /** Answers from now on close their connections, each calling `closeIdle` once flushed. */
  drain(closeIdle: () => void): void {
    this.#draining = closeIdle;
    for (const { active } of this.#all.values()) {
      if (active?.answering === true && !active.res.headersSent) {
        active.res.setHeader('connection', 'close');
      }
    }
  }

  #onConnection(socket: Socket): void {
    if (this.#all.size >= this.#limits.maxConnections) {
      const oldest = this.#idle.values().next();
      if (oldest.done === true) return endWith(socket, this.#handlers.refusedConnection);
      this.#drop(oldest.value);
    }
    const connection: Connection = {
      socket,
      since: performance.now(),
      pending: 0,
      active: undefined,
      activeSince: 0,
      queue: [],
      closeWith: undefined,
      closed: false,
    };
    this.#all.set(socket, connection);
    this.#idle.set(socket, connection);
    stopParsingWhenClosed(socket, connection);
    socket.once('close', () => this.#drop(connection));
  }

  #start(connection: Connection, entry: Entry): void {
    connection.active = entry;
    connection.activeSince = performance.now();
    if (this.#inFlight < this.#limits.maxRequestsInFlight) {
      this.#inFlight++;
      entry.answering = true;
      if (this.#draining !== undefined) entry.res.setHeader('connection', 'close');
      const work = this.#handlers.serve(entry.req, entry.res);
      if (work !== undefined) {
        entry.working = true;
        void work.finally(() => {
          entry.working = false;
          this.#leaveIfDone(entry);
        });
      }
    } else {
      this.#handlers.overloaded(entry.res);
    }
  }

  #release(entry: Entry): void {
    if (!entry.answering) return;
    entry.answering = false;
    this.#leaveIfDone(entry);
  }

  #leaveIfDone(entry: Entry): void {
    if (!entry.answering && !entry.working) this.#inFlight--;
  }

  #finished(entry: Entry): void {
    this.#release(entry);
    if (this.#draining !== undefined) setImmediate(this.#draining);
    const connection = entry.connection;
    if (connection.closed) return;
    connection.pending--;
    if (connection.active === entry) {
      connection.active = undefined;
      const next = connection.queue.shift();
      if (next !== undefined) {
        if (connection.queue.length === 0 && connection.closeWith === undefined) {
          connection.socket.resume();
        }
        this.#start(connection, next);
      }
    } else {
      const at = connection.queue.indexOf(entry);
      if (at >= 0) connection.queue.splice(at, 1);
    }
    if (connection.pending === 0) {
      if (connection.closeWith !== undefined) endWith(connection.socket, connection.closeWith);
      connection.since = performance.now();
      this.#idle.set(connection.socket, connection);
    }
  }

  #drop(connection: Connection): void {
    if (connection.closed) return;
    connection.closed = true;
    this.#all.delete(connection.socket);
    this.#idle.delete(connection.socket);
    if (connection.active !== undefined) this.#release(connection.active);
    for (const entry of connection.queue) this.#release(entry);
    connection.queue.length = 0;
    connection.socket.destroy();
  }

  #check(): void {
    const now = performance.now();
    // One interval late, so node's own headers timeout answers a half-sent head with its 408 first.
    const idleDeadline = now - this.#limits.headersTimeoutMs - this.#limits.checkIntervalMs;
    for (const connection of this.#idle.values()) {
      if (connection.since > idleDeadline) break;
      this.#drop(connection);
    }
    const flushDeadline = now - this.#limits.requestTimeoutMs;
    for (const connection of this.#all.values()) {
      if (connection.active !== undefined && connection.activeSince < flushDeadline) {
        this.#drop(connection);
      }
    }
  }
}
