import { VestaError } from '@vesta/core';
import type { Frame } from './Frame.js';
import { HEADER_BYTES, LENGTH_OVERHEAD } from './protocolConstants.js';

const EMPTY = Buffer.alloc(0);

/**
 * Cuts a byte stream into frames, pulled one at a time so a reader can stop (backpressure). A
 * length below the header is PROTOCOL_ERROR; above `maxFrameBytes` PAYLOAD_TOO_LARGE, raised as
 * soon as the length field is in.
 */
export class FrameDecoder {
  #maxFrameBytes: number;
  #buffer: Buffer = EMPTY;
  #offset = 0;
  #frameBuffer: Buffer = EMPTY;
  #payloadStart = 0;
  /** The current frame's fields (after {@link advance} returned true). */
  requestId = 0;
  op = 0;
  payloadLength = 0;

  constructor(maxFrameBytes: number) {
    this.#maxFrameBytes = maxFrameBytes;
  }

  set maxFrameBytes(value: number) {
    this.#maxFrameBytes = value;
  }

  /** Bytes received and not yet returned as frames. */
  get buffered(): number {
    return this.#buffer.length - this.#offset;
  }

  push(chunk: Buffer): void {
    if (this.#offset >= this.#buffer.length) {
      this.#buffer = chunk;
    } else {
      this.#buffer = Buffer.concat([this.#buffer.subarray(this.#offset), chunk]);
    }
    this.#offset = 0;
  }

  next(): Frame | undefined {
    if (!this.advance()) return undefined;
    return { requestId: this.requestId, op: this.op, payload: this.payload() };
  }

  /** Moves to the next whole frame without allocating (the fields describe it); false until more bytes arrive. */
  advance(): boolean {
    const buffer = this.#buffer;
    const offset = this.#offset;
    const available = buffer.length - offset;
    if (available < 4) return false;
    const length = buffer.readUInt32BE(offset);
    if (length < LENGTH_OVERHEAD) {
      const message = `frame length ${length} is shorter than the ${LENGTH_OVERHEAD}-byte header`;
      throw new VestaError('PROTOCOL_ERROR', message);
    }
    const maxFrameBytes = this.#maxFrameBytes;
    if (length + 4 > maxFrameBytes) {
      const frameBytes = length + 4;
      const message = `frame of ${frameBytes} bytes exceeds the ${maxFrameBytes}-byte limit`;
      throw new VestaError('PAYLOAD_TOO_LARGE', message, {
        details: { frameBytes, maxFrameBytes },
      });
    }
    if (available < length + 4) return false;
    const end = offset + 4 + length;
    this.requestId = buffer.readUInt32BE(offset + 4);
    this.op = buffer[offset + 8] as number;
    this.#frameBuffer = buffer;
    this.#payloadStart = offset + HEADER_BYTES;
    this.payloadLength = length - LENGTH_OVERHEAD;
    if (end >= buffer.length) {
      this.#buffer = EMPTY;
      this.#offset = 0;
    } else {
      this.#offset = end;
    }
    return true;
  }

  /** A view into the received bytes: copy it to keep it. */
  payload(): Buffer {
    return this.#frameBuffer.subarray(this.#payloadStart, this.#payloadStart + this.payloadLength);
  }

  /** Reads in the current payload (the caller checks its length). */
  payloadU32(at: number): number {
    return this.#frameBuffer.readUInt32BE(this.#payloadStart + at);
  }

  payloadU64(at: number): bigint {
    return this.#frameBuffer.readBigUInt64BE(this.#payloadStart + at);
  }
}
