import { timingSafeEqual } from 'node:crypto';
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
import type { Frame } from '../protocol/Frame.js';
import type { FrameDecoder } from '../protocol/FrameDecoder.js';
import { GenerateMessage } from '../protocol/GenerateMessage.js';
import { HelloMessage } from '../protocol/HelloMessage.js';
import { InfoMessage } from '../protocol/InfoMessage.js';
import { MakeMessage } from '../protocol/MakeMessage.js';
import { Op, OP_NAMES } from '../protocol/Op.js';
import { PingMessage } from '../protocol/PingMessage.js';
import { PROTOCOL_VERSION } from '../protocol/protocolConstants.js';
import { SegmentMessage } from '../protocol/SegmentMessage.js';
import { TransTimeMessage } from '../protocol/TransTimeMessage.js';
import { UuidMessage } from '../protocol/UuidMessage.js';
import { WelcomeMessage, type Welcome } from '../protocol/WelcomeMessage.js';
import type { AdmissionControl } from './AdmissionControl.js';
import type { ResolvedIdServerOptions } from './IdServerOptions.js';

export interface ConnectionContext {
  readonly service: IdService;
  readonly generators: IdGenerators;
  readonly options: ResolvedIdServerOptions;
  readonly segments: SegmentNumbers | undefined;
  readonly welcome: Welcome;
  readonly metrics: VestaMetrics;
  readonly generateRecorder: RequestRecorder;
  readonly logger: Logger;
  readonly admission: AdmissionControl;
}

export interface RequestTransport {
  /** Closed or closing for good: answers go nowhere. */
  readonly dead: boolean;
  readonly peer: string;
  write(frame: Buffer): void;
  /** Answers with an error frame and closes the connection. */
  fatal(requestId: number, code: VestaErrorCode, message: string): void;
  /** `bytes` of answer count against the flow-control caps from start to end. */
  requestStarted(bytes: number): void;
  requestEnded(bytes: number): void;
  /** After an answer was written: reading may resume, an ending connection may finish. */
  requestSettled(): void;
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

/** The requests of one connection: the handshake, then each frame answered by the service. */
export class IdRequestHandler {
  readonly #ctx: ConnectionContext;
  readonly #transport: RequestTransport;
  #ready = false;
  #handshakeTimer: NodeJS.Timeout | undefined;
  readonly #jobs: GenerateJob[] = [];

  constructor(ctx: ConnectionContext, transport: RequestTransport) {
    this.#ctx = ctx;
    this.#transport = transport;
    this.#handshakeTimer = setTimeout(
      () => transport.fatal(0, 'TIMEOUT', 'no handshake in time'),
      ctx.options.handshakeTimeoutMs,
    );
    this.#handshakeTimer.unref();
  }

  get ready(): boolean {
    return this.#ready;
  }

  stop(): void {
    clearTimeout(this.#handshakeTimer);
  }

  handle(decoder: FrameDecoder): void {
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
      this.#transport.fatal(requestId, 'PROTOCOL_ERROR', 'the handshake was already done');
    else {
      const hex = op.toString(16).padStart(2, '0');
      this.#transport.fatal(requestId, 'PROTOCOL_ERROR', `unknown op 0x${hex}`);
    }
  }

  #handshake(frame: Frame): void {
    const transport = this.#transport;
    if (frame.op !== Op.HELLO) {
      transport.fatal(frame.requestId, 'PROTOCOL_ERROR', 'the first frame must be a hello');
      return;
    }
    let hello;
    try {
      hello = HelloMessage.decode(frame.payload);
    } catch (error) {
      transport.fatal(frame.requestId, 'PROTOCOL_ERROR', (error as Error).message);
      return;
    }
    const welcome = welcomeFor(hello.protocolVersion, this.#ctx.welcome);
    if (typeof welcome === 'string') {
      transport.fatal(frame.requestId, 'HANDSHAKE_MISMATCH', welcome);
      return;
    }
    const expected = this.#ctx.options.authToken;
    if (expected !== undefined) {
      const given = Buffer.from(hello.token ?? '', 'utf8');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        this.#ctx.logger.warn(
          { peer: transport.peer },
          'handshake refused: bad or missing auth token',
        );
        transport.fatal(frame.requestId, 'UNAUTHORIZED', 'a valid auth token is required');
        return;
      }
    }
    clearTimeout(this.#handshakeTimer);
    this.#ready = true;
    transport.write(WelcomeMessage.encode(frame.requestId, welcome));
  }

  #generate(decoder: FrameDecoder): void {
    const requestId = decoder.requestId;
    let count: number;
    let key: string | undefined;
    try {
      count = GenerateMessage.decodeRequest(decoder);
      key = GenerateMessage.decodeKey(decoder);
    } catch (error) {
      this.#transport.fatal(requestId, 'PROTOCOL_ERROR', (error as Error).message);
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
    this.#transport.requestStarted(bytes);
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
    this.#transport.requestStarted(bytes);
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
      segments = segmentNumbersOf(this.#ctx.segments, checkSegmentKey(request.key));
    } catch (error) {
      this.#refuse(requestId, 'segment', started, error);
      return;
    }
    const { count, key } = request;
    const bytes = SegmentMessage.responseBytes(count);
    this.#transport.requestStarted(bytes);
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
      this.#transport.fatal(requestId, 'PROTOCOL_ERROR', error.message);
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
    const transport = this.#transport;
    transport.requestEnded(bytes);
    if (answer !== undefined) {
      const seconds = (performance.now() - started) / 1000;
      if (route === 'generate') this.#ctx.generateRecorder.record(200, seconds);
      else this.#ctx.metrics.observeRequest(route, 200, seconds);
      this.#ctx.metrics.countIdsIssued(count);
      transport.write(answer);
    } else {
      this.#answerError(requestId, route, started, error);
    }
    transport.requestSettled();
  }

  #answerSync({ requestId, op, payload }: Frame, sync: SyncAnswer): void {
    const route = OP_NAMES[op] ?? 'unknown';
    const started = performance.now();
    let answer: Buffer;
    try {
      answer = sync(this.#ctx.service, requestId, payload);
    } catch (error) {
      if (VestaError.is(error) && FATAL.has(error.code)) {
        this.#transport.fatal(requestId, error.code, error.message);
        return;
      }
      this.#answerError(requestId, route, started, error);
      return;
    }
    this.#ctx.metrics.observeRequest(route, 200, (performance.now() - started) / 1000);
    this.#transport.write(answer);
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
    if (this.#transport.dead) return;
    this.#transport.write(ErrorMessage.encode(requestId, code, message, retryAfterMs));
  }
}
