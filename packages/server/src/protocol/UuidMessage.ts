import { VestaError } from '@vesta/core';
import { uuidOfHex } from '@vesta/core/kit';
import { checkPayloadBytes, readListCount, allocFrame } from './Frame.js';
import { Op, RESPONSE_BIT, HEADER_BYTES } from './protocolConstants.js';

const UUID_BYTES = 16;

/** GENERATE_UUID: request u32 count; answer u32 count, then count x 16-byte UUIDv7s (increasing). */
export const UuidMessage = {
  encodeRequest(requestId: number, count: number): Buffer {
    const frame = allocFrame(requestId, Op.GENERATE_UUID, 4);
    frame.writeUInt32BE(count, HEADER_BYTES);
    return frame;
  },

  decodeRequest(payload: Buffer): number {
    checkPayloadBytes(payload, 4, 'generate-uuid payload');
    return payload.readUInt32BE(0);
  },

  responseBytes(count: number): number {
    return HEADER_BYTES + 4 + UUID_BYTES * count;
  },

  encodeResponse(requestId: number, uuids: readonly string[]): Buffer {
    const frame = allocFrame(
      requestId,
      Op.GENERATE_UUID | RESPONSE_BIT,
      4 + UUID_BYTES * uuids.length,
    );
    frame.writeUInt32BE(uuids.length, HEADER_BYTES);
    let at = HEADER_BYTES + 4;
    for (const uuid of uuids) {
      if (frame.write(uuid.replaceAll('-', ''), at, 'hex') !== UUID_BYTES) {
        throw new VestaError('INTERNAL_ERROR', `not a canonical UUID: ${uuid}`);
      }
      at += UUID_BYTES;
    }
    return frame;
  },

  decodeResponse(payload: Buffer): string[] {
    const count = readListCount(payload, UUID_BYTES, 'generate-uuid answer');
    const uuids = new Array<string>(count);
    for (let i = 0, at = 4; i < count; i++, at += UUID_BYTES) {
      uuids[i] = uuidOfHex(payload.toString('hex', at, at + UUID_BYTES));
    }
    return uuids;
  },
} as const;
