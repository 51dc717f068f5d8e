import { VestaError } from '@vesta/core';
import type { Frame } from './Frame.js';
import { HEADER_BYTES, LENGTH_OVERHEAD } from './protocolConstants.js';

const EMPTY = Buffer.alloc(0);

/**
 * Cuts a byte stream into frames. Bytes are pushed as they arrive and frames pulled one at a
 * time, so a reader can stop pulling (backpressure) and keep the rest buffered. A length
 * field below the header size is PROTOCOL_ERROR; above `maxFrameBytes` PAYLOAD_TOO_LARGE,
 * raised as soon as the length field is in, before any of the body is buffered.
 */
export class FrameDecoder {
  #maxFrameBytes: number;
  #buffer: Buffer = EMPTY;
  #offset = 0;

  constructor(maxFrameBytes: number) {
    this.#maxFrameBytes = maxFrameBytes;
  }

  /** Raises or lowers the frame size limit (a client learns it in the handshake). */
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

  /** The next whole frame, or undefined until more bytes arrive. Throws on a bad length. */
  next(): Frame | undefined {
    const buffer = this.#buffer;
    const offset = this.#offset;
    const available = buffer.length - offset;
    if (available < 4) return undefined;
    const length = buffer.readUInt32BE(offset);
    if (length < LENGTH_OVERHEAD) {
      throw new VestaError(
        'PROTOCOL_ERROR',
        `frame length ${length} is shorter than the ${LENGTH_OVERHEAD}-byte header`,
      );
    }
    if (length + 4 > this.#maxFrameBytes) {
      throw new VestaError(
        'PAYLOAD_TOO_LARGE',
        `frame of ${length + 4} bytes exceeds the ${this.#maxFrameBytes}-byte limit`,
        {
          details: { frameBytes: length + 4, maxFrameBytes: this.#maxFrameBytes },
        },
      );
    }
    if (available < length + 4) return undefined;
    const end = offset + 4 + length;
    const frame: Frame = {
      requestId: buffer.readUInt32BE(offset + 4),
      op: buffer[offset + 8] as number,
      payload: buffer.subarray(offset + HEADER_BYTES, end),
    };
    if (end >= buffer.length) {
      this.#buffer = EMPTY;
      this.#offset = 0;
    } else {
      this.#offset = end;
    }
    return frame;
  }
}
