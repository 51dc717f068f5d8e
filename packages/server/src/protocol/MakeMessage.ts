import { VestaError, type IdType, type MakeIdFields } from '@vesta/core';
import { checkPayloadBytes, readSafeU64, writeSafeU64, allocFrame } from './Frame.js';
import { Op, RESPONSE_BIT, HEADER_BYTES } from './protocolConstants.js';

const HAS_MACHINE = 1;
const HAS_GEN_METHOD = 2;
const HAS_TYPE = 4;
const HAS_VERSION = 8;
const ALL = HAS_MACHINE | HAS_GEN_METHOD | HAS_TYPE | HAS_VERSION;

/** MAKE: u8 presence bits, then six u64 fields (absent ones 0: the server's own apply); answer u64 id. */
export const MakeMessage = {
  encodeRequest(requestId: number, f: MakeIdFields): Buffer {
    const frame = allocFrame(requestId, Op.MAKE, 49);
    const flags =
      (f.machine === undefined ? 0 : HAS_MACHINE) |
      (f.genMethod === undefined ? 0 : HAS_GEN_METHOD) |
      (f.type === undefined ? 0 : HAS_TYPE) |
      (f.version === undefined ? 0 : HAS_VERSION);
    let at = frame.writeUInt8(flags, HEADER_BYTES);
    for (const [name, value] of [
      ['time', f.time],
      ['seq', f.seq],
      ['machine', f.machine ?? 0],
      ['genMethod', f.genMethod ?? 0],
      ['type', f.type ?? 0],
      ['version', f.version ?? 0],
    ] as const) {
      at = writeSafeU64(frame, value, at, name);
    }
    return frame;
  },

  decodeRequest(payload: Buffer): MakeIdFields {
    checkPayloadBytes(payload, 49, 'make payload');
    const flags = payload.readUInt8(0);
    if ((flags & ~ALL) !== 0)
      throw new VestaError('PROTOCOL_ERROR', `make payload has unknown presence bits ${flags}`);
    return {
      time: readSafeU64(payload, 1, 'time'),
      seq: readSafeU64(payload, 9, 'seq'),
      ...(flags & HAS_MACHINE ? { machine: readSafeU64(payload, 17, 'machine') } : {}),
      ...(flags & HAS_GEN_METHOD ? { genMethod: readSafeU64(payload, 25, 'genMethod') } : {}),
      ...(flags & HAS_TYPE ? { type: readSafeU64(payload, 33, 'type') as IdType } : {}),
      ...(flags & HAS_VERSION ? { version: readSafeU64(payload, 41, 'version') } : {}),
    };
  },

  encodeResponse(requestId: number, id: bigint): Buffer {
    const frame = allocFrame(requestId, Op.MAKE | RESPONSE_BIT, 8);
    frame.writeBigUInt64BE(id, HEADER_BYTES);
    return frame;
  },

  decodeResponse(payload: Buffer): bigint {
    checkPayloadBytes(payload, 8, 'make answer');
    return payload.readBigUInt64BE(0);
  },
} as const;
