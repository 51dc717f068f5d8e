import { timingSafeEqual } from 'node:crypto';
import type { Socket } from 'node:net';
import {
  VestaError,
  type IdGenerators,
  type IdService,
  type Logger,
  type VestaErrorCode,
} from '@vesta/core';
import { checkBatchCount, statusOf, VESTA_FIELD_ORDER } from '@vesta/core/kit';
import type { RequestRecorder, VestaMetrics } from '@vesta/metrics';
import { DecodeMessage } from '../protocol/DecodeMessage.js';
import { ErrorMessage } from '../protocol/ErrorMessage.js';
import type { Frame } from '../protocol/Frame.js';
import { FrameDecoder } from '../protocol/FrameDecoder.js';
import { GenerateMessage } from '../protocol/GenerateMessage.js';
import { GoAwayMessage } from '../protocol/GoAwayMessage.js';
import { HelloMessage } from '../protocol/HelloMessage.js';
import { InfoMessage } from '../protocol/InfoMessage.js';
import { MakeMessage } from '../protocol/MakeMessage.js';
import { Op, OP_NAMES } from '../protocol/Op.js';
import { PingMessage } from '../protocol/PingMessage.js';
import { MAX_REQUEST_FRAME_BYTES, PROTOCOL_VERSION } from '../protocol/protocolConstants.js';
import { TransTimeMessage } from '../protocol/TransTimeMessage.js';
import { WelcomeMessage, type Welcome } from '../protocol/WelcomeMessage.js';
import type { AdmissionControl, AdmissionWaiter } from './AdmissionControl.js';
import type { ResolvedIdServerOptions } from './IdServerOptions.js';

/** What every connection of one server shares. */
export interface ConnectionContext {
  readonly service: IdService;
  /** The named generators over `service` (a GENERATE with a key). */
  readonly generators: IdGenerators;
  readonly options: ResolvedIdServerOptions;
  readonly welcome: Welcome;
  readonly metrics: VestaMetrics;
  /** Where successful generates are recorded (moved to `metrics` in batches). */
  /** Records answered GENERATEs (route `generate`), the hot path's cheap way into the metrics. */
  readonly generateRecorder: RequestRecorder;
  readonly logger: Logger;
  /** The server-wide caps on requests in flight and answer bytes queued. */
  readonly admission: AdmissionControl;
}

/** Errors that mean the byte stream itself is wrong: answered, then the connection is closed. */
const FATAL: ReadonlySet<VestaErrorCode> = new Set([
  'PROTOCOL_ERROR',
  'PAYLOAD_TOO_LARGE',
  'UNAUTHORIZED',
  'HANDSHAKE_MISMATCH',
  'TIMEOUT',
]);
/** A GENERATE being worked on; reused for later requests once answered. */
interface GenerateJob {
  requestId: number;
  count: number;
  bytes: number;
  started: number;
  readonly onId: (id: bigint) => void;
  readonly onIds: (ids: bigint[]) => void;
  readonly onError: (error: unknown) => void;
}

/** After a fatal error frame, a peer that does not close gets this long before the socket is cut. */
const LINGER_MS = 1000;

/**
 * One client connection of the id server: handshake, then pipelined requests answered as they
 * complete (possibly out of order). Reading pauses while `maxInFlight` requests are running or
 * `writeBufferBytes` of answers are queued, so a slow reader costs bounded memory.
 */
export class IdServerConnection {
  readonly #socket: Socket;
  readonly #ctx: ConnectionContext;
  readonly #decoder = new FrameDecoder(MAX_REQUEST_FRAME_BYTES);
  #ready = false;
  #closing = false;
  #dead = false;
  #inFlight = 0;
  #pendingBytes = 0;
  #paused = false;
  #peerEnded = false;
  #corked = false;
  #handshakeTimer: NodeJS.Timeout | undefined;
  /** When the frame now incomplete in the decoder began to wait for its rest (0: none waits). */
  #partialSince = 0;
  #lastActiveAt = performance.now();
  /** The socket's queued bytes as last counted in the server-wide admission budget. */
  #counted = 0;
  readonly #waiter: AdmissionWaiter;
  readonly #jobs: GenerateJob[] = [];
  readonly #closed: Promise<void>;

  constructor(socket: Socket, ctx: ConnectionContext) {
    this.#socket = socket;
    this.#ctx = ctx;
    this.#closed = new Promise((resolve) => socket.once('close', () => resolve()));
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the waiter reads this connection's state
    const self = this;
    this.#waiter = {
      get idle() {
        return (
          self.#inFlight === 0 && self.#pendingBytes === 0 && self.#socket.writableLength === 0
        );
      },
      resume: () => this.#maybeResume(),
    };
    socket.setNoDelay(true);
    socket.setTimeout(ctx.options.idleTimeoutMs);
    this.#handshakeTimer = setTimeout(
      () => this.#fatal(0, 'TIMEOUT', 'no handshake in time'),
      ctx.options.handshakeTimeoutMs,
    );
    this.#handshakeTimer.unref();
    socket.on('data', (chunk: Buffer) => {
      if (this.#dead) return;
      this.#lastActiveAt = performance.now();
      this.#decoder.push(chunk);
      this.#pump();
      this.#checkPartial();
    });
    socket.on('drain', () => this.#maybeResume());
    socket.on('end', () => this.#onPeerEnd());
    socket.on('timeout', () => this.#onIdle());
    socket.on('error', (error) =>
      ctx.logger.info({ err: error.message, peer: this.#peer() }, 'connection error'),
    );
    socket.on('close', () => {
      this.#dead = true;
      clearTimeout(this.#handshakeTimer);
      ctx.admission.forget(this.#waiter);
      ctx.admission.addBytes(-this.#counted);
      this.#counted = 0;
    });
  }

  /** Resolves once the socket is closed. */
  get closed(): Promise<void> {
    return this.#closed;
  }

  /**
   * Starts a graceful close: GOAWAY tells the client to send nothing new and to close its side
   * once its answers are in; requests already sent are still answered.
   */
  shutdown(): void {
    if (this.#dead || this.#closing) return;
    this.#closing = true;
    if (this.#ready) this.#write(GoAwayMessage.encode());
    else this.#socket.end();
    this.#maybeFinish();
  }

  /** Cuts the connection now. */
  destroy(): void {
    this.#socket.destroy();
  }

  /** Whether the connection may be closed to make room: no request in flight, not closing. */
  get evictable(): boolean {
    return this.#inFlight === 0 && !this.#dead && !this.#closing;
  }

  /** When bytes last arrived (performance.now()). */
  get lastActiveAt(): number {
    return this.#lastActiveAt;
  }

  /**
   * Closes an idle connection to make room for a new one: GOAWAY (once handshaken), then the
   * socket is ended and cut after a short linger.
   */
  evict(): void {
    if (this.#dead) return;
    this.#ctx.logger.info({ peer: this.#peer() }, 'closing the connection idle the longest');
    this.#dead = true;
    clearTimeout(this.#handshakeTimer);
    const socket = this.#socket;
    if (socket.writable) {
      if (this.#ready) socket.end(GoAwayMessage.encode());
      else socket.end();
    }
    // Reading on (and discarding) lets the peer's FIN close the socket at once.
    if (this.#paused) socket.resume();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  }

  #peer(): string {
    return `${this.#socket.remoteAddress ?? '?'}:${this.#socket.remotePort ?? '?'}`;
  }

  #pump(): void {
    const limit = this.#ctx.options.writeBufferBytes;
    const maxInFlight = this.#ctx.options.maxInFlight;
    while (!this.#dead) {
      if (
        this.#inFlight >= maxInFlight ||
        this.#socket.writableLength + this.#pendingBytes > limit
      ) {
        this.#pause();
        return;
      }
      if (!this.#ctx.admission.mayRead(this.#waiter)) {
        this.#pause();
        return;
      }
      const decoder = this.#decoder;
      let more: boolean;
      try {
        more = decoder.advance();
      } catch (error) {
        const e = VestaError.from(error);
        this.#fatal(0, e.code, e.message);
        return;
      }
      if (!more) {
        if (this.#peerEnded) this.#onPeerEnd();
        return;
      }
      this.#partialSince = 0;
      // The hot path: a GENERATE after the handshake, read straight from the decoder.
      if (decoder.op === Op.GENERATE && this.#ready) this.#generate(decoder);
      else
        this.#handle({ requestId: decoder.requestId, op: decoder.op, payload: decoder.payload() });
    }
  }

  /**
   * A frame must arrive whole within the idle timeout of its first byte: a peer trickling a
   * byte now and then would otherwise hold the connection open forever (each byte resets the
   * socket's idle timer).
   */
  #checkPartial(): void {
    if (this.#dead || this.#paused || this.#decoder.buffered === 0) {
      this.#partialSince = 0;
      return;
    }
    const now = performance.now();
    if (this.#partialSince === 0) this.#partialSince = now;
    else if (now - this.#partialSince > this.#ctx.options.idleTimeoutMs) {
      this.#fatal(
        0,
        'PROTOCOL_ERROR',
        `a frame did not arrive whole within ${this.#ctx.options.idleTimeoutMs} ms (${this.#decoder.buffered} bytes so far)`,
      );
    }
  }

  #pause(): void {
    if (!this.#paused) {
      this.#paused = true;
      this.#socket.pause();
    }
  }

  #maybeResume(): void {
    if (!this.#paused || this.#dead) return;
    if (this.#inFlight >= this.#ctx.options.maxInFlight) return;
    if (this.#socket.writableLength + this.#pendingBytes > this.#ctx.options.writeBufferBytes)
      return;
    this.#paused = false;
    this.#socket.resume();
    this.#pump();
  }

  #handle(frame: Frame): void {
    const { requestId, op } = frame;
    if (!this.#ready) {
      this.#handshake(frame);
      return;
    }
    switch (op) {
      case Op.DECODE:
      case Op.MAKE:
      case Op.TRANSTIME:
      case Op.INFO:
      case Op.PING:
        this.#answerSync(frame);
        return;
      case Op.HELLO:
        this.#fatal(requestId, 'PROTOCOL_ERROR', 'the handshake was already done');
        return;
      default:
        this.#fatal(
          requestId,
          'PROTOCOL_ERROR',
          `unknown op 0x${op.toString(16).padStart(2, '0')}`,
        );
    }
  }

  #handshake(frame: Frame): void {
    if (frame.op !== Op.HELLO) {
      this.#fatal(frame.requestId, 'PROTOCOL_ERROR', 'the first frame must be a hello');
      return;
    }
    let hello;
    try {
      hello = HelloMessage.decode(frame.payload);
    } catch (error) {
      this.#fatal(frame.requestId, 'PROTOCOL_ERROR', (error as Error).message);
      return;
    }
    const welcome = welcomeFor(hello.protocolVersion, this.#ctx.welcome);
    if (typeof welcome === 'string') {
      this.#fatal(frame.requestId, 'HANDSHAKE_MISMATCH', welcome);
      return;
    }
    const expected = this.#ctx.options.authToken;
    if (expected !== undefined) {
      const given = Buffer.from(hello.token ?? '', 'utf8');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        this.#ctx.logger.warn(
          { peer: this.#peer() },
          'handshake refused: bad or missing auth token',
        );
        this.#fatal(frame.requestId, 'UNAUTHORIZED', 'a valid auth token is required');
        return;
      }
    }
    clearTimeout(this.#handshakeTimer);
    this.#ready = true;
    this.#write(WelcomeMessage.encode(frame.requestId, welcome));
  }

  #generate(decoder: FrameDecoder): void {
    const requestId = decoder.requestId;
    let count: number;
    let key: string | undefined;
    try {
      count = GenerateMessage.decodeRequest(decoder);
      key = GenerateMessage.decodeKey(decoder);
    } catch (error) {
      this.#fatal(requestId, 'PROTOCOL_ERROR', (error as Error).message);
      return;
    }
    const started = performance.now();
    let service = this.#ctx.service;
    try {
      if (key !== undefined) service = this.#ctx.generators.get(key);
      checkBatchCount(count, this.#ctx.welcome.maxBatch);
    } catch (error) {
      this.#answerError(requestId, 'generate', started, error);
      return;
    }
    const bytes = GenerateMessage.responseBytes(count);
    this.#inFlight++;
    this.#pendingBytes += bytes;
    this.#ctx.admission.start(bytes);
    // Jobs are reused with their callbacks bound once, so a request allocates no closures.
    const job = this.#jobs.pop() ?? this.#newJob();
    job.requestId = requestId;
    job.count = count;
    job.bytes = bytes;
    job.started = started;
    if (count === 1) service.genId().then(job.onId, job.onError);
    else service.genIds(count).then(job.onIds, job.onError);
  }

  #newJob(): GenerateJob {
    const job: GenerateJob = {
      requestId: 0,
      count: 0,
      bytes: 0,
      started: 0,
      onId: (id: bigint) => {
        this.#generated(job, GenerateMessage.encodeOne(job.requestId, id));
      },
      onIds: (ids: bigint[]) => {
        this.#generated(job, GenerateMessage.encodeResponse(job.requestId, ids));
      },
      onError: (error: unknown) => {
        this.#generated(job, undefined, error);
      },
    };
    return job;
  }

  #generated(job: GenerateJob, answer: Buffer | undefined, error?: unknown): void {
    const { requestId, count, started } = job;
    this.#inFlight--;
    this.#pendingBytes -= job.bytes;
    this.#jobs.push(job);
    this.#ctx.admission.finish(job.bytes);
    if (answer !== undefined) {
      this.#ctx.generateRecorder.record(200, (performance.now() - started) / 1000);
      this.#ctx.metrics.countIdsIssued(count);
      this.#write(answer);
    } else {
      this.#answerError(requestId, 'generate', started, error);
    }
    if (this.#paused) this.#maybeResume();
    if (this.#inFlight === 0) this.#maybeFinish();
  }

  #answerSync(frame: Frame): void {
    const { requestId, op, payload } = frame;
    const route = OP_NAMES[op] ?? 'unknown';
    const started = performance.now();
    const service = this.#ctx.service;
    let answer: Buffer;
    try {
      switch (op) {
        case Op.DECODE:
          answer = DecodeMessage.encodeResponse(
            requestId,
            service.expId(DecodeMessage.decodeRequest(payload)),
          );
          break;
        case Op.MAKE:
          answer = MakeMessage.encodeResponse(
            requestId,
            service.makeId(MakeMessage.decodeRequest(payload)),
          );
          break;
        case Op.TRANSTIME: {
          const request = TransTimeMessage.decodeRequest(payload);
          answer = TransTimeMessage.encodeResponse(
            requestId,
            service.transTime(request.time, request.type),
          );
          break;
        }
        case Op.INFO:
          InfoMessage.decodeRequest(payload);
          answer = InfoMessage.encodeResponse(requestId, service.info());
          break;
        default:
          answer = PingMessage.encodeResponse(requestId, PingMessage.decodeRequest(payload));
      }
    } catch (error) {
      if (VestaError.is(error) && FATAL.has(error.code)) {
        this.#fatal(requestId, error.code, error.message);
        return;
      }
      this.#answerError(requestId, route, started, error);
      return;
    }
    this.#ctx.metrics.observeRequest(route, 200, (performance.now() - started) / 1000);
    this.#write(answer);
  }

  #answerError(requestId: number, route: string, started: number, error: unknown): void {
    let code: VestaErrorCode = 'INTERNAL_ERROR';
    let message = 'internal error';
    let retryAfterMs: number | undefined;
    if (VestaError.is(error)) {
      code = error.code;
      message = error.message;
      const hint = error.details?.['retryAfterMs'];
      if (typeof hint === 'number' && Number.isFinite(hint)) retryAfterMs = hint;
    } else {
      this.#ctx.logger.error(
        { err: error instanceof Error ? error.stack : String(error) },
        'request failed unexpectedly',
      );
    }
    this.#ctx.metrics.observeRequest(route, statusOf(code), (performance.now() - started) / 1000);
    if (this.#dead) return;
    this.#write(ErrorMessage.encode(requestId, code, message, retryAfterMs));
  }

  /** Answers with an error frame (when the socket still takes writes) and closes the connection. */
  #fatal(requestId: number, code: VestaErrorCode, message: string): void {
    if (this.#dead) return;
    this.#dead = true;
    this.#ctx.metrics.observeRequest('protocol', statusOf(code), 0);
    this.#ctx.logger.info({ peer: this.#peer(), code, message }, 'closing connection');
    clearTimeout(this.#handshakeTimer);
    const socket = this.#socket;
    if (socket.writable) socket.end(ErrorMessage.encode(requestId, code, message));
    socket.pause();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  }

  #write(frame: Buffer): void {
    if (this.#dead) return;
    const socket = this.#socket;
    if (!socket.writable) return;
    // Answers finished in the same tick go out in one write. A lone answer (nothing else in
    // flight to wait for) is written at once, without the cork and the tick it costs.
    if (!this.#corked && this.#inFlight > 0) {
      this.#corked = true;
      socket.cork();
      process.nextTick(this.#uncork);
    }
    socket.write(frame, this.#onFlushed);
    this.#count();
  }

  /** Brings the socket's queued bytes into the server-wide budget. */
  #count(): void {
    const now = this.#socket.writableLength;
    const delta = now - this.#counted;
    if (delta !== 0) {
      this.#counted = now;
      this.#ctx.admission.addBytes(delta);
    }
  }

  /** A write reached the kernel: its bytes leave the budgets, a paused reader may go on. */
  readonly #onFlushed = (): void => {
    if (this.#counted === 0) return;
    this.#count();
    if (this.#paused) this.#maybeResume();
  };

  readonly #uncork = (): void => {
    this.#corked = false;
    this.#socket.uncork();
  };

  #onPeerEnd(): void {
    this.#peerEnded = true;
    if (this.#dead) return;
    if (this.#decoder.buffered > 0 && !this.#paused) {
      this.#fatal(
        0,
        'PROTOCOL_ERROR',
        `the connection ended inside a frame (${this.#decoder.buffered} bytes left)`,
      );
      return;
    }
    this.#maybeFinish();
  }

  #maybeFinish(): void {
    if (this.#inFlight > 0 || this.#dead) return;
    if (this.#peerEnded && this.#decoder.buffered === 0) {
      this.#socket.end();
    }
  }

  #onIdle(): void {
    if (this.#dead) return;
    const socket = this.#socket;
    // A peer that stopped reading is cut even while queued for admission: its unread answers
    // hold the server-wide byte budget, and nothing else would ever free it.
    if (socket.writableLength > 0) {
      // The peer has stopped reading its answers: nothing would drain them.
      this.#ctx.logger.info(
        { peer: this.#peer(), buffered: socket.writableLength },
        'closing a connection that stopped reading',
      );
      this.#dead = true;
      socket.destroy();
      return;
    }
    // Paused by the server-wide caps: the frames waiting are not the peer's fault.
    if (this.#ctx.admission.isWaiting(this.#waiter)) return;
    if (this.#decoder.buffered > 0) {
      this.#fatal(
        0,
        'PROTOCOL_ERROR',
        `truncated frame: ${this.#decoder.buffered} bytes and no more in time`,
      );
      return;
    }
    if (this.#inFlight > 0) return;
    this.#dead = true;
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  }
}

/**
 * The welcome of a client's protocol version: protocol 2 as it is; protocol 1 (35 bytes, Vesta
 * widths only) for a Vesta layout, whose widths say all. Otherwise why the client cannot be
 * served.
 */
function welcomeFor(protocolVersion: number, welcome: Welcome): Welcome | string {
  if (protocolVersion === PROTOCOL_VERSION) return welcome;
  if (protocolVersion === 1) {
    const { fields } = welcome.layoutSpec;
    // Vesta's order, fields of 0 bits included (a custom Vesta layout), no reserved bits.
    const vesta =
      welcome.layout.genMethodBits > 0 &&
      fields.length === VESTA_FIELD_ORDER.length &&
      fields.every((f, i) => f.name === VESTA_FIELD_ORDER[i]);
    if (vesta) return { ...welcome, protocolVersion: 1 };
    return `this server issues ${welcome.layoutSpec.name ?? 'custom'} ids, whose layout needs protocol ${PROTOCOL_VERSION}; the client speaks 1`;
  }
  return `this server speaks protocol versions 1 and ${PROTOCOL_VERSION}, the client ${protocolVersion}`;
}
