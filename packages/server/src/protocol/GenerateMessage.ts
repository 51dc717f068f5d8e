import { VestaError } from '@vesta/core';
import { encodeU64List, readListCount, allocFrame } from './Frame.js';
import type { FrameDecoder } from './FrameDecoder.js';
import { Op, RESPONSE_BIT, HEADER_BYTES } from './protocolConstants.js';

/** The longest generator name a GENERATE carries, in bytes. */
export const MAX_KEY_BYTES = 64;

/** GENERATE: u32 count, optionally u8 key length and a generator's name; answer u32 count, the ids. */
export const GenerateMessage = {
  encodeRequest(requestId: number, count: number, key?: string): Buffer {
    const keyBytes = key === undefined ? 0 : Buffer.byteLength(key, 'latin1');
    const frame = allocFrame(requestId, Op.GENERATE, keyBytes === 0 ? 4 : 5 + keyBytes);
    frame.writeUInt32BE(count, HEADER_BYTES);
    if (key !== undefined && keyBytes > 0) {
      frame.writeUInt8(keyBytes, HEADER_BYTES + 4);
      frame.write(key, HEADER_BYTES + 5, 'latin1');
    }
    return frame;
  },

  /** The count, read in place (the server's hot path allocates no payload). */
  decodeRequest(decoder: FrameDecoder): number {
    const length = decoder.payloadLength;
    if (length !== 4) {
      const keyLength = length > 4 ? (decoder.payload()[4] ?? 0) : 0;
      if (length < 6 || keyLength < 1 || keyLength > MAX_KEY_BYTES || length !== 5 + keyLength) {
        throw new VestaError(
          'PROTOCOL_ERROR',
          `generate payload must be 4 bytes, or 5 + a key of 1-${MAX_KEY_BYTES} bytes, got ${length}`,
        );
      }
    }
    return decoder.payloadU32(0);
  },

  decodeKey(decoder: FrameDecoder): string | undefined {
    if (decoder.payloadLength === 4) return undefined;
    return decoder.payload().toString('latin1', 5);
  },

  responseBytes(count: number): number {
    return HEADER_BYTES + 4 + 8 * count;
  },

  encodeResponse(requestId: number, ids: readonly bigint[]): Buffer {
    return encodeU64List(requestId, Op.GENERATE | RESPONSE_BIT, ids);
  },

  encodeOne(requestId: number, id: bigint): Buffer {
    const frame = allocFrame(requestId, Op.GENERATE | RESPONSE_BIT, 12);
    frame.writeUInt32BE(1, HEADER_BYTES);
    frame.writeBigUInt64BE(id, HEADER_BYTES + 4);
    return frame;
  },

  decodeResponse(payload: Buffer): bigint[] {
    const count = readListCount(payload, 8, 'generate answer');
    const ids = new Array<bigint>(count);
    for (let i = 0, at = 4; i < count; i++, at += 8) ids[i] = payload.readBigUInt64BE(at);
    return ids;
  },
} as const;
