import { VestaError, type Id, type IdType } from '@vesta/core';
import { checkPayloadBytes, readSafeU64, allocFrame } from './Frame.js';
import { Op, RESPONSE_BIT, HEADER_BYTES } from './protocolConstants.js';

/** DECODE: request u64 id; answer 6 x u64: machine, seq, time, genMethod, type, version. */
export const DecodeMessage = {
  encodeRequest(requestId: number, id: bigint): Buffer {
    const frame = allocFrame(requestId, Op.DECODE, 8);
    frame.writeBigUInt64BE(id, HEADER_BYTES);
    return frame;
  },

  decodeRequest(payload: Buffer): bigint {
    checkPayloadBytes(payload, 8, 'decode payload');
    return payload.readBigUInt64BE(0);
  },

  encodeResponse(requestId: number, id: Id): Buffer {
    const frame = allocFrame(requestId, Op.DECODE | RESPONSE_BIT, 48);
    let at = HEADER_BYTES;
    for (const value of [id.machine, id.seq, id.time, id.genMethod, id.type, id.version]) {
      at = frame.writeBigUInt64BE(BigInt(value), at);
    }
    return frame;
  },

  decodeResponse(payload: Buffer): Id {
    checkPayloadBytes(payload, 48, 'decode answer');
    const type = readSafeU64(payload, 32, 'type');
    if (type !== 0 && type !== 1)
      throw new VestaError('PROTOCOL_ERROR', `decode answer names an unknown type ${type}`);
    return {
      machine: readSafeU64(payload, 0, 'machine'),
      seq: readSafeU64(payload, 8, 'seq'),
      time: readSafeU64(payload, 16, 'time'),
      genMethod: readSafeU64(payload, 24, 'genMethod'),
      type: type as IdType,
      version: readSafeU64(payload, 40, 'version'),
    };
  },
} as const;
