import { EventEmitter } from 'node:events';
import { connect, type Socket } from 'node:net';
import {
  systemTimeSource,
  VestaError,
  type Id,
  type IdServiceInfo,
  type IdType,
  type MakeIdFields,
  type TimeSource,
  type TimerHandle,
} from '@vesta/core';
import { sleepOn } from '@vesta/core/kit';
import { DecodeMessage } from '../protocol/DecodeMessage.js';
import { ErrorMessage } from '../protocol/ErrorMessage.js';
import { FrameDecoder } from '../protocol/FrameDecoder.js';
import { GenerateMessage } from '../protocol/GenerateMessage.js';
import { HelloMessage } from '../protocol/HelloMessage.js';
import { InfoMessage } from '../protocol/InfoMessage.js';
import { MakeMessage } from '../protocol/MakeMessage.js';
import { Op, RESPONSE_BIT, HEADER_BYTES, PROTOCOL_VERSION } from '../protocol/protocolConstants.js';
import { formatServerAddress, type ServerAddress } from '../protocol/parseServerAddress.js';
import { PingMessage } from '../protocol/PingMessage.js';
import { SegmentMessage } from '../protocol/SegmentMessage.js';
import { UuidMessage } from '../protocol/UuidMessage.js';
import { TransTimeMessage } from '../protocol/TransTimeMessage.js';
import { WelcomeMessage, type Welcome } from '../protocol/WelcomeMessage.js';
import type { IdClientOptions } from './IdClientOptions.js';

/** Calls `tick` every `everyMs` (unref'd) until the returned function is called. */
export function startKeepAlive(time: TimeSource, everyMs: number, tick: () => void): () => void {
  let timer: TimerHandle | undefined;
  let stopped = false;
  const schedule = (): void => {
    timer = time
      .setTimer(() => {
        if (stopped) return;
        tick();
        schedule();
      }, everyMs)
      .unref();
  };
  schedule();
  return () => {
    stopped = true;
    timer?.cancel();
  };
}

/** Options of {@link ProtocolConnection.connect}: the client's of these names (same defaults). */
export type ProtocolConnectionOptions = Pick<
  IdClientOptions,
  'authToken' | 'connectTimeoutMs' | 'requestTimeoutMs' | 'time'
>;

type ParseAnswer<T> = (decoder: FrameDecoder) => T;

interface Pending {
  readonly op: number;
  readonly deadline: number;
  readonly parse: ParseAnswer<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: VestaError) => void;
}

/** The resolve and reject of the last `new Promise(capture)`: one executor, no closure a request. */
const captured: { resolve: (value: unknown) => void; reject: (error: VestaError) => void } = {
  resolve: () => undefined,
  reject: () => undefined,
};
function capture(resolve: (value: never) => void, reject: (error: VestaError) => void): void {
  captured.resolve = resolve as (value: unknown) => void;
  captured.reject = reject;
}

const welcomeOf = (d: FrameDecoder): Welcome => WelcomeMessage.decode(d.payload());
const idsOf = (d: FrameDecoder): bigint[] => GenerateMessage.decodeResponse(d.payload());
const oneIdOf = (d: FrameDecoder): bigint => {
  if (d.payloadLength !== 12 || d.payloadU32(0) !== 1)
    throw new VestaError('PROTOCOL_ERROR', 'generate answer does not hold one id');
  return d.payloadU64(4);
};

/** Events of a {@link ProtocolConnection}. */
export interface ProtocolConnectionEvents {
  /** `error` says why when it was not a clean close. */
  close: [error: VestaError | undefined];
  goaway: [];
  timeout: [];
}

const MAX_ANSWER_BYTES = UuidMessage.responseBytes(10_000_000);

/**
 * One handshaken connection to an id server: requests pipelined, matched to their answers by
 * request id, each with a deadline. Build it with {@link ProtocolConnection.connect}.
 */
export class ProtocolConnection extends EventEmitter<ProtocolConnectionEvents> {
  readonly address: ServerAddress;
  readonly server: string;
  readonly #socket: Socket;
  readonly #pending = new Map<number, Pending>();
  readonly #decoder = new FrameDecoder(HEADER_BYTES + 64 * 1024);
  readonly #timeoutMs: number;
  #welcome: Welcome | undefined;
  #nextId = 1;
  #corked = false;
  #closed = false;
  #draining = false;
  readonly #time: TimeSource;
  #stopSweeper: (() => void) | undefined;
  /** When a request was last sent (monotonic). */
  lastUsedAt: number;

  private constructor(address: ServerAddress, requestTimeoutMs: number, time: TimeSource) {
    super();
    this.#time = time;
    this.lastUsedAt = time.monotonic();
    this.address = address;
    this.server = formatServerAddress(address);
    const socket = connect({ host: address.host, port: address.port, noDelay: true });
    this.#socket = socket;
    this.#timeoutMs = requestTimeoutMs;
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('error', (error) => this.#fail(this.#unavailable(`failed: ${error.message}`, error)));
    socket.on('close', () => this.#fail(this.#unavailable('closed')));
    socket.on('end', () => {
      if (this.#pending.size > 0 || !this.#draining) socket.end();
    });
  }

  /** Connects and handshakes: NO_SERVER_AVAILABLE, TIMEOUT, UNAUTHORIZED or HANDSHAKE_MISMATCH. */
  static async connect(
    address: ServerAddress,
    options: ProtocolConnectionOptions = {},
  ): Promise<ProtocolConnection> {
    const connectTimeoutMs = options.connectTimeoutMs ?? 1000;
    const time = options.time ?? systemTimeSource;
    const connection = new ProtocolConnection(address, options.requestTimeoutMs ?? 1000, time);
    const server = connection.server;
    const timer = time.setTimer(() => {
      const message = `no handshake from ${server} within ${connectTimeoutMs} ms`;
      connection.destroy(new VestaError('TIMEOUT', message, { details: { server } }));
    }, connectTimeoutMs);
    try {
      const id = connection.#id();
      const token = options.authToken;
      const hello = HelloMessage.encode(id, { protocolVersion: PROTOCOL_VERSION, token });
      const welcome = await connection.#send(id, hello, Op.HELLO, Infinity, welcomeOf);
      if (welcome.protocolVersion !== PROTOCOL_VERSION) {
        const message = `${server} speaks protocol ${welcome.protocolVersion}`;
        throw new VestaError('HANDSHAKE_MISMATCH', message);
      }
      connection.#welcome = welcome;
      // The largest answer: a GENERATE_UUID of maxBatch (16 bytes a UUID, 8 an id).
      const largest = UuidMessage.responseBytes(welcome.maxBatch) + 1024;
      connection.#decoder.maxFrameBytes = Math.min(MAX_ANSWER_BYTES, largest);
    } catch (error) {
      const e = VestaError.is(error)
        ? error
        : new VestaError('PROTOCOL_ERROR', String(error), { cause: error });
      connection.destroy(e);
      throw e;
    } finally {
      timer.cancel();
    }
    const every = Math.max(5, Math.min(100, Math.floor(connection.#timeoutMs / 4)));
    connection.#stopSweeper = startKeepAlive(time, every, () => connection.#sweep());
    return connection;
  }

  get welcome(): Welcome {
    return this.#welcome as Welcome;
  }

  get inFlight(): number {
    return this.#pending.size;
  }

  /** Open and not told GOAWAY. */
  get usable(): boolean {
    return !this.#closed && !this.#draining;
  }

  /** `count` ids, of the generator `key` (the server's own when undefined). */
  generate(count: number, key?: string): Promise<bigint[]> {
    const id = this.#id();
    const frame = GenerateMessage.encodeRequest(id, count, key);
    return this.#send(id, frame, Op.GENERATE, this.#timeoutMs, idsOf);
  }

  /** One id, read straight from the answer frame. */
  generateOne(key?: string): Promise<bigint> {
    const id = this.#id();
    const frame = GenerateMessage.encodeRequest(id, 1, key);
    return this.#send(id, frame, Op.GENERATE, this.#timeoutMs, oneIdOf);
  }

  generateUuids(count: number): Promise<string[]> {
    const encode = (r: number): Buffer => UuidMessage.encodeRequest(r, count);
    return this.#ask(Op.GENERATE_UUID, encode, UuidMessage.decodeResponse);
  }

  /** A key that does not fit a frame is INVALID_ARGUMENT at once. */
  segments(key: string, count: number): Promise<bigint[]> {
    const id = this.#id();
    let frame: Buffer;
    try {
      frame = SegmentMessage.encodeRequest(id, key, count);
    } catch (error) {
      return Promise.reject(VestaError.from(error));
    }
    return this.#send(id, frame, Op.SEGMENT, this.#timeoutMs, idsOf);
  }

  decode(id: bigint): Promise<Id> {
    const encode = (r: number): Buffer => DecodeMessage.encodeRequest(r, id);
    return this.#ask(Op.DECODE, encode, DecodeMessage.decodeResponse);
  }

  make(fields: MakeIdFields): Promise<bigint> {
    const encode = (r: number): Buffer => MakeMessage.encodeRequest(r, fields);
    return this.#ask(Op.MAKE, encode, MakeMessage.decodeResponse);
  }

  transTime(time: number, type?: IdType): Promise<Date> {
    const encode = (r: number): Buffer => TransTimeMessage.encodeRequest(r, time, type);
    return this.#ask(Op.TRANSTIME, encode, TransTimeMessage.decodeResponse);
  }

  info(): Promise<IdServiceInfo> {
    return this.#ask(Op.INFO, InfoMessage.encodeRequest, InfoMessage.decodeResponse);
  }

  /** Resolves with the echoed bytes. */
  ping(data?: Buffer): Promise<Buffer> {
    return this.#ask(
      Op.PING,
      (r) => PingMessage.encodeRequest(r, data),
      (p) => Buffer.from(p),
    );
  }

  /** Stops sending, waits for the answers in flight (at most `timeoutMs`), then closes. */
  async close(timeoutMs = 1000): Promise<void> {
    if (this.#closed) return;
    this.#draining = true;
    const time = this.#time;
    const deadline = time.monotonic() + timeoutMs;
    while (this.#pending.size > 0 && !this.#closed && time.monotonic() < deadline) {
      await sleepOn(time, 5);
    }
    if (this.#closed) return;
    const closed = new Promise<void>((resolve) => this.#socket.once('close', () => resolve()));
    this.#socket.end();
    const cutAfter = Math.max(10, deadline - time.monotonic());
    const timer = time.setTimer(() => this.#socket.destroy(), cutAfter);
    await closed;
    timer.cancel();
  }

  /** Closes now; every request in flight fails with `error`. */
  destroy(error?: VestaError): void {
    const message = `connection to ${this.server} was closed by the client`;
    this.#fail(error ?? new VestaError('SERVICE_CLOSED', message));
    this.#socket.destroy();
  }

  #unavailable(what: string, cause?: Error): VestaError {
    const { server } = this;
    const message = `connection to ${server} ${what}`;
    return new VestaError('NO_SERVER_AVAILABLE', message, { cause, details: { server } });
  }

  #id(): number {
    const id = this.#nextId;
    this.#nextId = id >= 0xffffffff ? 1 : id + 1;
    return id;
  }

  /** A request off the hot paths. */
  #ask<T>(op: number, encode: (id: number) => Buffer, parse: (payload: Buffer) => T): Promise<T> {
    const id = this.#id();
    return this.#send(id, encode(id), op, this.#timeoutMs, (d) => parse(d.payload()));
  }

  #send<T>(
    requestId: number,
    frame: Buffer,
    op: number,
    timeoutMs: number,
    parse: ParseAnswer<T>,
  ): Promise<T> {
    if (this.#closed || this.#draining) return Promise.reject(this.#unavailable('is closing'));
    const now = this.#time.monotonic();
    this.lastUsedAt = now;
    const promise = new Promise<T>(capture);
    const pending = this.#pending;
    // Frames of one tick leave in one write; a lone request is written at once, uncorked.
    if (!this.#corked && pending.size > 0) {
      this.#corked = true;
      this.#socket.cork();
      process.nextTick(this.#uncork);
    }
    pending.set(requestId, {
      op,
      deadline: now + timeoutMs,
      parse,
      resolve: captured.resolve,
      reject: captured.reject,
    });
    this.#socket.write(frame);
    return promise;
  }

  readonly #uncork = (): void => {
    this.#corked = false;
    this.#socket.uncork();
  };

  #onData(chunk: Buffer): void {
    const decoder = this.#decoder;
    decoder.push(chunk);
    for (;;) {
      try {
        if (!decoder.advance()) return;
      } catch (error) {
        this.destroy(VestaError.from(error));
        return;
      }
      const requestId = decoder.requestId;
      const op = decoder.op;
      if (op === Op.GOAWAY && requestId === 0) {
        this.#draining = true;
        this.emit('goaway');
        if (this.#pending.size === 0) this.#socket.end();
        continue;
      }
      if (op === Op.ERROR && requestId === 0) {
        this.destroy(ErrorMessage.decode(decoder.payload()));
        return;
      }
      const pending = this.#pending.get(requestId);
      // An answer to a request that already timed out: nothing waits for it.
      if (pending === undefined) continue;
      this.#pending.delete(requestId);
      if (op === Op.ERROR) {
        pending.reject(ErrorMessage.decode(decoder.payload()));
      } else if (op === (pending.op | RESPONSE_BIT)) {
        let value: unknown;
        let parsed = false;
        try {
          value = pending.parse(decoder);
          parsed = true;
        } catch (error) {
          pending.reject(VestaError.from(error));
        }
        if (parsed) pending.resolve(value);
      } else {
        const asked = pending.op.toString(16);
        const message = `${this.server} answered op 0x${asked} with op 0x${op.toString(16)}`;
        pending.reject(new VestaError('PROTOCOL_ERROR', message));
        this.destroy(new VestaError('PROTOCOL_ERROR', `${this.server} sent an unexpected frame`));
        return;
      }
      if (this.#draining && this.#pending.size === 0) this.#socket.end();
    }
  }

  #sweep(): void {
    const now = this.#time.monotonic();
    let timedOut = 0;
    const message = `${this.server} did not answer within ${this.#timeoutMs} ms`;
    // Kept in the order sent, with one timeout: the first not expired ends the scan.
    for (const [requestId, pending] of this.#pending) {
      if (pending.deadline > now) break;
      this.#pending.delete(requestId);
      timedOut++;
      pending.reject(new VestaError('TIMEOUT', message, { details: { server: this.server } }));
    }
    if (timedOut > 0) this.emit('timeout');
  }

  #fail(error: VestaError): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopSweeper?.();
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) p.reject(error);
    this.emit('close', this.#draining && pending.length === 0 ? undefined : error);
  }
}
