import { timingSafeEqual } from 'node:crypto';
import type { Socket } from 'node:net';
import {
  VestaError,
  type IdGenerators,
  type IdService,
  type Logger,
  type VestaErrorCode,
} from '@vesta/core';
import {
  checkBatchCount,
  checkSegmentKey,
  segmentNumbersOf,
  statusOf,
  VESTA_FIELD_ORDER,
  type SegmentNumbers,
} from '@vesta/core/kit';
import type { RequestRecorder, VestaMetrics } from '@vesta/metrics';
import { DecodeMessage } from '../protocol/DecodeMessage.js';
import { ErrorMessage } from '../protocol/ErrorMessage.js';
import { allocFrame, type Frame } from '../protocol/Frame.js';
import { FrameDecoder } from '../protocol/FrameDecoder.js';
import { GenerateMessage } from '../protocol/GenerateMessage.js';
import { HelloMessage } from '../protocol/HelloMessage.js';
import { InfoMessage } from '../protocol/InfoMessage.js';
import { MakeMessage } from '../protocol/MakeMessage.js';
import { Op, MAX_REQUEST_FRAME_BYTES, PROTOCOL_VERSION } from '../protocol/protocolConstants.js';
import { PingMessage } from '../protocol/PingMessage.js';
import { SegmentMessage } from '../protocol/SegmentMessage.js';
import { TransTimeMessage } from '../protocol/TransTimeMessage.js';
import { UuidMessage } from '../protocol/UuidMessage.js';
import { WelcomeMessage, type Welcome } from '../protocol/WelcomeMessage.js';
import type { AdmissionControl, AdmissionWaiter } from './AdmissionControl.js';
import type { ResolvedIdServerOptions } from './IdServerOptions.js';

export interface ConnectionContext {
  readonly service: IdService;
  readonly generators: IdGenerators;
  readonly options: ResolvedIdServerOptions;
  readonly welcome: Welcome;
  readonly metrics: VestaMetrics;
  readonly generateRecorder: RequestRecorder;
  readonly logger: Logger;
  readonly admission: AdmissionControl;
}

/** The welcome of a client's protocol version (1 only for a Vesta layout), else why not. */
function welcomeFor(protocolVersion: number, welcome: Welcome): Welcome | string {
  if (protocolVersion === PROTOCOL_VERSION) return welcome;
  if (protocolVersion === 3 || protocolVersion === 2) return { ...welcome, protocolVersion };
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
  return `this server speaks protocol versions 1 to ${PROTOCOL_VERSION}, the client ${protocolVersion}`;
}

/** Errors that mean the byte stream itself is wrong: answered, then the connection is closed. */
const FATAL: ReadonlySet<VestaErrorCode> = new Set([
  'PROTOCOL_ERROR',
  'PAYLOAD_TOO_LARGE',
  'UNAUTHORIZED',
  'HANDSHAKE_MISMATCH',
  'TIMEOUT',
]);

type SyncAnswer = (service: IdService, requestId: number, payload: Buffer) => Buffer;

const SYNC_ANSWERS: Readonly<Record<number, SyncAnswer>> = {
  [Op.DECODE]: (s, r, p) =>
    DecodeMessage.encodeResponse(r, s.expId(DecodeMessage.decodeRequest(p))),
  [Op.MAKE]: (s, r, p) => MakeMessage.encodeResponse(r, s.makeId(MakeMessage.decodeRequest(p))),
  [Op.TRANSTIME]: (s, r, p) => {
    const { time, type } = TransTimeMessage.decodeRequest(p);
    return TransTimeMessage.encodeResponse(r, s.transTime(time, type));
  },
  [Op.INFO]: (s, r, p) => {
    InfoMessage.decodeRequest(p);
    return InfoMessage.encodeResponse(r, s.info());
  },
  [Op.PING]: (_, r, p) => PingMessage.encodeResponse(r, PingMessage.decodeRequest(p)),
};
const SYNC_ROUTES: Readonly<Record<number, string>> = Object.freeze({
  [Op.DECODE]: 'decode',
  [Op.MAKE]: 'make',
  [Op.TRANSTIME]: 'transtime',
  [Op.INFO]: 'info',
  [Op.PING]: 'ping',
});

/** A GENERATE being worked on, reused once answered so a request allocates no closures. */
interface GenerateJob {
  requestId: number;
  count: number;
  bytes: number;
  started: number;
  readonly onId: (id: bigint) => void;
  readonly onIds: (ids: bigint[]) => void;
  readonly onError: (error: unknown) => void;
}

/** A peer told to go (fatal error, eviction) that does not close is cut after this. */
const LINGER_MS = 1000;

const goAway = (): Buffer => allocFrame(0, Op.GOAWAY, 0);

/**
 * One client connection: framing, flow control, the handshake, then each frame answered by the
 * service. Reading pauses at the per-connection and server-wide caps (a slow reader costs bounded
 * memory); a trickling frame, a peer that stops reading or idles, or ends inside a frame is cut.
 */
export class IdServerConnection implements AdmissionWaiter {
  readonly #socket: Socket;
  readonly #ctx: ConnectionContext;
  readonly #decoder = new FrameDecoder(MAX_REQUEST_FRAME_BYTES);
  #ready = false;
  #handshakeTimer: NodeJS.Timeout | undefined;
  readonly #jobs: GenerateJob[] = [];
  #closing = false;
  #dead = false;
  #inFlight = 0;
  #pendingBytes = 0;
  #paused = false;
  #peerEnded = false;
  #corked = false;
  /** Since when an incomplete frame waits for its rest (0: none). */
  #partialSince = 0;
  #lastActiveAt = performance.now();
  /** The socket's queued bytes as last counted in the server-wide budget. */
  #counted = 0;
  /** A whole frame (still in the decoder) waits for admission, asking for #heldCost ids. */
  #held = false;
  #heldCost = 0;
  readonly #closed: Promise<void>;

  constructor(socket: Socket, ctx: ConnectionContext) {
    this.#socket = socket;
    this.#ctx = ctx;
    this.#closed = new Promise((resolve) => socket.once('close', () => resolve()));
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
      ctx.admission.forget(this);
      ctx.admission.addBytes(-this.#counted);
      this.#counted = 0;
    });
  }

  get idle(): boolean {
    return this.#inFlight === 0 && this.#pendingBytes === 0 && this.#socket.writableLength === 0;
  }

  get cost(): number {
    return this.#heldCost;
  }

  resume(): void {
    this.#maybeResume();
  }

  get closed(): Promise<void> {
    return this.#closed;
  }

  /** Graceful close: GOAWAY, requests already sent are still answered. */
  shutdown(): void {
    if (this.#dead || this.#closing) return;
    this.#closing = true;
    if (this.#ready) this.#write(goAway());
    else this.#socket.end();
    this.#maybeFinish();
  }

  destroy(): void {
    this.#socket.destroy();
  }

  get evictable(): boolean {
    return this.#inFlight === 0 && !this.#dead && !this.#closing;
  }

  get lastActiveAt(): number {
    return this.#lastActiveAt;
  }

  /** Closes an idle connection to make room: GOAWAY (once handshaken), end, cut after a linger. */
  evict(): void {
    if (this.#dead) return;
    this.#ctx.logger.info({ peer: this.#peer() }, 'closing the connection idle the longest');
    this.#dead = true;
    clearTimeout(this.#handshakeTimer);
    const socket = this.#socket;
    if (socket.writable) {
      if (this.#ready) socket.end(goAway());
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
      const decoder = this.#decoder;
      if (!this.#held) {
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
        this.#held = true;
        this.#heldCost = this.#costOf(decoder);
      }
      // Asked once the frame is whole, so the server-wide line knows how many ids it wants.
      if (!this.#ctx.admission.mayRead(this, this.#heldCost)) {
        this.#pause();
        return;
      }
      this.#held = false;
      this.#heldCost = 0;
      this.#take(decoder);
    }
  }

  /** The ids a frame takes of the fair share: a valid GENERATE(_UUID)'s count, else 0. */
  #costOf(decoder: FrameDecoder): number {
    const { op } = decoder;
    if (op !== Op.GENERATE && op !== Op.GENERATE_UUID) return 0;
    if (!this.#ready || decoder.payloadLength < 4) return 0;
    const count = decoder.payloadU32(0);
    return count >= 1 && count <= this.#ctx.welcome.maxBatch ? count : 0;
  }

  /** A frame must arrive whole within the idle timeout (each trickled byte resets the socket's). */
  #checkPartial(): void {
    if (this.#dead || this.#paused || this.#decoder.buffered === 0) {
      this.#partialSince = 0;
      return;
    }
    const now = performance.now();
    if (this.#partialSince === 0) this.#partialSince = now;
    else if (now - this.#partialSince > this.#ctx.options.idleTimeoutMs) {
      const waited = `${this.#ctx.options.idleTimeoutMs} ms (${this.#decoder.buffered} bytes so far)`;
      this.#fatal(0, 'PROTOCOL_ERROR', `a frame did not arrive whole within ${waited}`);
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
    // Answers of one tick go out in one write; a lone answer is written at once, uncorked.
    if (!this.#corked && this.#inFlight > 0) {
      this.#corked = true;
      socket.cork();
      process.nextTick(this.#uncork);
    }
    socket.write(frame, this.#onFlushed);
    this.#count();
  }

  #count(): void {
    const now = this.#socket.writableLength;
    const delta = now - this.#counted;
    if (delta !== 0) {
      this.#counted = now;
      this.#ctx.admission.addBytes(delta);
    }
  }

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
      const left = `${this.#decoder.buffered} bytes left`;
      this.#fatal(0, 'PROTOCOL_ERROR', `the connection ended inside a frame (${left})`);
      return;
    }
    this.#maybeFinish();
  }

  #maybeFinish(): void {
    if (this.#inFlight > 0 || this.#held || this.#dead) return;
    if (this.#peerEnded && this.#decoder.buffered === 0) this.#socket.end();
  }

  #onIdle(): void {
    if (this.#dead) return;
    const socket = this.#socket;
    // A peer that stopped reading is cut even while queued for admission: its unread answers
    // hold the server-wide byte budget, and nothing else would free it.
    if (socket.writableLength > 0) {
      this.#ctx.logger.info(
        { peer: this.#peer(), buffered: socket.writableLength },
        'closing a connection that stopped reading',
      );
      this.#dead = true;
      socket.destroy();
      return;
    }
    // Paused by the server-wide caps: not the peer's fault.
    if (this.#ctx.admission.isWaiting(this)) return;
    if (this.#decoder.buffered > 0) {
      const message = `truncated frame: ${this.#decoder.buffered} bytes and no more in time`;
      this.#fatal(0, 'PROTOCOL_ERROR', message);
      return;
    }
    if (this.#inFlight > 0) return;
    this.#dead = true;
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  }

  #requestStarted(bytes: number): void {
    this.#inFlight++;
    this.#pendingBytes += bytes;
    this.#ctx.admission.start(bytes);
  }

  #requestEnded(bytes: number): void {
    this.#inFlight--;
    this.#pendingBytes -= bytes;
    this.#ctx.admission.finish(bytes);
  }

  /** After an answer was written: reading may resume, an ending connection may finish. */
  #requestSettled(): void {
    if (this.#paused) this.#maybeResume();
    if (this.#inFlight === 0) this.#maybeFinish();
  }

  #take(decoder: FrameDecoder): void {
    // The hot path: a GENERATE after the handshake, read straight from the decoder.
    if (decoder.op === Op.GENERATE && this.#ready) this.#generate(decoder);
    else this.#handle({ requestId: decoder.requestId, op: decoder.op, payload: decoder.payload() });
  }

  #handle(frame: Frame): void {
    const { requestId, op } = frame;
    if (!this.#ready) {
      this.#handshake(frame);
      return;
    }
    const sync = SYNC_ANSWERS[op];
    if (sync !== undefined) this.#answerSync(frame, sync);
    else if (op === Op.GENERATE_UUID) this.#generateUuids(frame);
    else if (op === Op.SEGMENT) this.#segments(frame);
    else if (op === Op.HELLO)
      this.#fatal(requestId, 'PROTOCOL_ERROR', 'the handshake was already done');
    else {
      const hex = op.toString(16).padStart(2, '0');
      this.#fatal(requestId, 'PROTOCOL_ERROR', `unknown op 0x${hex}`);
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
    this.#requestStarted(bytes);
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
    this.#jobs.push(job);
    this.#answered(job.requestId, 'generate', job.count, job.bytes, job.started, answer, error);
  }

  /** GENERATE_UUID: from the same claims and fair share as GENERATE's ids. */
  #generateUuids({ requestId, payload }: Frame): void {
    const started = performance.now();
    let count: number;
    try {
      count = UuidMessage.decodeRequest(payload);
      checkBatchCount(count, this.#ctx.welcome.maxBatch);
    } catch (error) {
      this.#refuse(requestId, 'genuuid', started, error);
      return;
    }
    const bytes = UuidMessage.responseBytes(count);
    this.#requestStarted(bytes);
    const answered = this.#answered.bind(this, requestId, 'genuuid', count, bytes, started);
    this.#ctx.service.genUuids(count).then(
      (uuids) => answered(UuidMessage.encodeResponse(requestId, uuids)),
      (error: unknown) => answered(undefined, error),
    );
  }

  /** SEGMENT: numbers of the segment store, not the layout's: no fair id share, only the caps. */
  #segments({ requestId, payload }: Frame): void {
    const started = performance.now();
    let request: { count: number; key: string };
    let segments: SegmentNumbers;
    try {
      request = SegmentMessage.decodeRequest(payload);
      checkBatchCount(request.count, this.#ctx.welcome.maxBatch);
      // As REST's /segment/{key}: a bad key is INVALID_ARGUMENT whether or not there are segments.
      segments = segmentNumbersOf(this.#ctx.options.segments, checkSegmentKey(request.key));
    } catch (error) {
      this.#refuse(requestId, 'segment', started, error);
      return;
    }
    const { count, key } = request;
    const bytes = SegmentMessage.responseBytes(count);
    this.#requestStarted(bytes);
    const answered = this.#answered.bind(this, requestId, 'segment', count, bytes, started);
    // segments(key, n) checks n against the service's own maxBatch; one number takes the short way.
    (count === 1 ? segments.segment(key).then((n) => [n]) : segments.segments(key, count)).then(
      (numbers) => answered(SegmentMessage.encodeResponse(requestId, numbers)),
      (error: unknown) => answered(undefined, error),
    );
  }

  /** A request that cannot start: a broken stream is fatal, anything else is answered. */
  #refuse(requestId: number, route: string, started: number, error: unknown): void {
    if (VestaError.is(error, 'PROTOCOL_ERROR'))
      this.#fatal(requestId, 'PROTOCOL_ERROR', error.message);
    else this.#answerError(requestId, route, started, error);
  }

  #answered(
    requestId: number,
    route: 'generate' | 'genuuid' | 'segment',
    count: number,
    bytes: number,
    started: number,
    answer: Buffer | undefined,
    error?: unknown,
  ): void {
    this.#requestEnded(bytes);
    if (answer !== undefined) {
      const seconds = (performance.now() - started) / 1000;
      if (route === 'generate') this.#ctx.generateRecorder.record(200, seconds);
      else this.#ctx.metrics.observeRequest(route, 200, seconds);
      this.#ctx.metrics.countIdsIssued(count);
      this.#write(answer);
    } else {
      this.#answerError(requestId, route, started, error);
    }
    this.#requestSettled();
  }

  #answerSync({ requestId, op, payload }: Frame, sync: SyncAnswer): void {
    const route = SYNC_ROUTES[op] ?? 'unknown';
    const started = performance.now();
    let answer: Buffer;
    try {
      answer = sync(this.#ctx.service, requestId, payload);
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
}
