import { VestaError, type IdType } from '@vesta/core';
import { checkPayloadBytes, readSafeU64, writeSafeU64, allocFrame } from './Frame.js';
import { Op, RESPONSE_BIT, HEADER_BYTES, SERVER_TYPE } from './protocolConstants.js';

/** TRANSTIME: request u64 time, u8 type (0, 1, or 255 for the server's); answer u64 Unix ms. */
export const TransTimeMessage = {
  encodeRequest(requestId: number, time: number, type: IdType | undefined): Buffer {
    const frame = allocFrame(requestId, Op.TRANSTIME, 9);
    writeSafeU64(frame, time, HEADER_BYTES, 'time');
    frame.writeUInt8(type ?? SERVER_TYPE, HEADER_BYTES + 8);
    return frame;
  },

  /** `type` undefined: the server's. */
  decodeRequest(payload: Buffer): { readonly time: number; readonly type: IdType | undefined } {
    checkPayloadBytes(payload, 9, 'transtime payload');
    const type = payload.readUInt8(8);
    if (type !== 0 && type !== 1 && type !== SERVER_TYPE) {
      throw new VestaError(
        'INVALID_ARGUMENT',
        `type must be 0 (max-peak) or 1 (min-granularity), got ${type}`,
      );
    }
    return {
      time: readSafeU64(payload, 0, 'time'),
      type: type === SERVER_TYPE ? undefined : (type as IdType),
    };
  },

  encodeResponse(requestId: number, date: Date): Buffer {
    const frame = allocFrame(requestId, Op.TRANSTIME | RESPONSE_BIT, 8);
    frame.writeBigUInt64BE(BigInt(date.getTime()), HEADER_BYTES);
    return frame;
  },

  decodeResponse(payload: Buffer): Date {
    checkPayloadBytes(payload, 8, 'transtime answer');
    return new Date(readSafeU64(payload, 0, 'date'));
  },
} as const;
