import { VestaError } from '@vesta/core';
import { encodeU64List, allocFrame } from './Frame.js';
import { GenerateMessage } from './GenerateMessage.js';
import { Op, RESPONSE_BIT, HEADER_BYTES } from './protocolConstants.js';

/** The longest segment key a SEGMENT carries, in UTF-8 bytes (200 code points of 4 bytes). */
export const MAX_SEGMENT_KEY_BYTES = 800;

// Fatal: a replacement character would change the key; a dropped leading U+FEFF would make it another key.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** SEGMENT (protocol 4): u32 count, u16 key length, the key (UTF-8); answer GENERATE's, under its op. */
export const SegmentMessage = {
  encodeRequest(requestId: number, key: string, count: number): Buffer {
    const keyBytes = Buffer.byteLength(key, 'utf8');
    if (keyBytes < 1 || keyBytes > MAX_SEGMENT_KEY_BYTES) {
      throw new VestaError(
        'INVALID_ARGUMENT',
        `a segment key must be 1 to ${MAX_SEGMENT_KEY_BYTES} bytes of UTF-8, got ${keyBytes}`,
      );
    }
    const frame = allocFrame(requestId, Op.SEGMENT, 6 + keyBytes);
    frame.writeUInt32BE(count, HEADER_BYTES);
    frame.writeUInt16BE(keyBytes, HEADER_BYTES + 4);
    frame.write(key, HEADER_BYTES + 6, 'utf8');
    return frame;
  },

  /** A bad length is PROTOCOL_ERROR (the stream is wrong), a key not UTF-8 INVALID_ARGUMENT (the request is). */
  decodeRequest(payload: Buffer): { readonly count: number; readonly key: string } {
    const keyBytes = payload.length >= 6 ? payload.readUInt16BE(4) : 0;
    if (keyBytes < 1 || keyBytes > MAX_SEGMENT_KEY_BYTES || payload.length !== 6 + keyBytes) {
      throw new VestaError(
        'PROTOCOL_ERROR',
        `segment payload must be 6 bytes + a key of 1-${MAX_SEGMENT_KEY_BYTES} bytes, got ${payload.length}`,
      );
    }
    return { count: payload.readUInt32BE(0), key: SegmentMessage.decodeKey(payload.subarray(6)) };
  },

  decodeKey(bytes: Buffer): string {
    try {
      return utf8.decode(bytes);
    } catch (cause) {
      throw new VestaError('INVALID_ARGUMENT', 'the segment key is not valid UTF-8', { cause });
    }
  },

  responseBytes: GenerateMessage.responseBytes,

  encodeResponse(requestId: number, numbers: readonly bigint[]): Buffer {
    return encodeU64List(requestId, Op.SEGMENT | RESPONSE_BIT, numbers);
  },

  decodeResponse: GenerateMessage.decodeResponse,
} as const;
