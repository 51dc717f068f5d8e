import type { Socket } from 'node:net';
import { VestaError, type VestaErrorCode } from '@vesta/core';
import { statusOf } from '@vesta/core/kit';
import { ErrorMessage } from '../protocol/ErrorMessage.js';
import { allocFrame } from '../protocol/Frame.js';
import { FrameDecoder } from '../protocol/FrameDecoder.js';
import { Op } from '../protocol/Op.js';
import { MAX_REQUEST_FRAME_BYTES } from '../protocol/protocolConstants.js';
import type { AdmissionWaiter } from './AdmissionControl.js';
import {
  IdRequestHandler,
  type ConnectionContext,
  type RequestTransport,
} from './IdRequestHandler.js';

/** A peer told to go (fatal error, eviction) that does not close is cut after this. */
const LINGER_MS = 1000;

const goAway = (): Buffer => allocFrame(0, Op.GOAWAY, 0);

/**
 * One client connection: socket, framing and flow control; its {@link IdRequestHandler} answers
 * the frames. Reading pauses at the per-connection and server-wide caps, so a slow reader costs
 * bounded memory; a trickling frame, a peer that stops reading or idles, and one ending inside a
 * frame are cut.
 */
export class IdServerConnection {
  readonly #socket: Socket;
  readonly #ctx: ConnectionContext;
  readonly #decoder = new FrameDecoder(MAX_REQUEST_FRAME_BYTES);
  readonly #handler: IdRequestHandler;
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
  readonly #waiter: AdmissionWaiter;
  readonly #closed: Promise<void>;

  constructor(socket: Socket, ctx: ConnectionContext) {
    this.#socket = socket;
    this.#ctx = ctx;
    this.#closed = new Promise((resolve) => socket.once('close', () => resolve()));
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the waiter and the handler's transport read this connection's state
    const self = this;
    this.#waiter = {
      get idle() {
        return (
          self.#inFlight === 0 && self.#pendingBytes === 0 && self.#socket.writableLength === 0
        );
      },
      get cost() {
        return self.#heldCost;
      },
      resume: () => this.#maybeResume(),
    };
    socket.setNoDelay(true);
    socket.setTimeout(ctx.options.idleTimeoutMs);
    const transport: RequestTransport = {
      get dead() {
        return self.#dead;
      },
      get peer() {
        return self.#peer();
      },
      write: (frame) => this.#write(frame),
      fatal: (requestId, code, message) => this.#fatal(requestId, code, message),
      requestStarted: (bytes) => {
        this.#inFlight++;
        this.#pendingBytes += bytes;
        ctx.admission.start(bytes);
      },
      requestEnded: (bytes) => {
        this.#inFlight--;
        this.#pendingBytes -= bytes;
        ctx.admission.finish(bytes);
      },
      requestSettled: () => {
        if (this.#paused) this.#maybeResume();
        if (this.#inFlight === 0) this.#maybeFinish();
      },
    };
    this.#handler = new IdRequestHandler(ctx, transport);
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
      this.#handler.stop();
      ctx.admission.forget(this.#waiter);
      ctx.admission.addBytes(-this.#counted);
      this.#counted = 0;
    });
  }

  get closed(): Promise<void> {
    return this.#closed;
  }

  /** Graceful close: GOAWAY, requests already sent are still answered. */
  shutdown(): void {
    if (this.#dead || this.#closing) return;
    this.#closing = true;
    if (this.#handler.ready) this.#write(goAway());
    else this.#socket.end();
    this.#maybeFinish();
  }

  destroy(): void {
    this.#socket.destroy();
  }

  /** Nothing in flight, not closing: may be closed to make room. */
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
    this.#handler.stop();
    const socket = this.#socket;
    if (socket.writable) {
      if (this.#handler.ready) socket.end(goAway());
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
      if (!this.#ctx.admission.mayRead(this.#waiter, this.#heldCost)) {
        this.#pause();
        return;
      }
      this.#held = false;
      this.#heldCost = 0;
      this.#handler.handle(decoder);
    }
  }

  /** The ids a frame takes of the fair share: a valid GENERATE(_UUID)'s count, else 0. */
  #costOf(decoder: FrameDecoder): number {
    const { op } = decoder;
    if (op !== Op.GENERATE && op !== Op.GENERATE_UUID) return 0;
    if (!this.#handler.ready || decoder.payloadLength < 4) return 0;
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

  #fatal(requestId: number, code: VestaErrorCode, message: string): void {
    if (this.#dead) return;
    this.#dead = true;
    this.#ctx.metrics.observeRequest('protocol', statusOf(code), 0);
    this.#ctx.logger.info({ peer: this.#peer(), code, message }, 'closing connection');
    this.#handler.stop();
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
    if (this.#inFlight > 0 || this.#held || this.#dead) return;
    if (this.#peerEnded && this.#decoder.buffered === 0) {
      this.#socket.end();
    }
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
