import { VestaError } from '@vesta/core';
import { allocFrame } from './Frame.js';
import type { FrameDecoder } from './FrameDecoder.js';
import { Op, RESPONSE_BIT } from './Op.js';
import { HEADER_BYTES } from './protocolConstants.js';

/** GENERATE: request u32 count; answer u32 count, then count x u64 ids (increasing). */
export const GenerateMessage = {
  encodeRequest(requestId: number, count: number): Buffer {
    const frame = allocFrame(requestId, Op.GENERATE, 4);
    frame.writeUInt32BE(count, HEADER_BYTES);
    return frame;
  },

  /**
   * The count of the GENERATE frame the decoder is on, read in place (the server's hot path
   * allocates no payload). A payload of another size than 4 bytes is PROTOCOL_ERROR.
   */
  decodeRequest(decoder: FrameDecoder): number {
    if (decoder.payloadLength !== 4)
      throw new VestaError(
        'PROTOCOL_ERROR',
        `generate payload must be 4 bytes, got ${decoder.payloadLength}`,
      );
    return decoder.payloadU32(0);
  },

  /** The answer's size in bytes, before it is built (for write accounting). */
  responseBytes(count: number): number {
    return HEADER_BYTES + 4 + 8 * count;
  },

  encodeResponse(requestId: number, ids: readonly bigint[]): Buffer {
    const frame = allocFrame(requestId, Op.GENERATE | RESPONSE_BIT, 4 + 8 * ids.length);
    frame.writeUInt32BE(ids.length, HEADER_BYTES);
    let at = HEADER_BYTES + 4;
    for (const id of ids) at = frame.writeBigUInt64BE(id, at);
    return frame;
  },

  encodeOne(requestId: number, id: bigint): Buffer {
    const frame = allocFrame(requestId, Op.GENERATE | RESPONSE_BIT, 12);
    frame.writeUInt32BE(1, HEADER_BYTES);
    frame.writeBigUInt64BE(id, HEADER_BYTES + 4);
    return frame;
  },

  decodeResponse(payload: Buffer): bigint[] {
    if (payload.length < 4) throw new VestaError('PROTOCOL_ERROR', 'generate answer is truncated');
    const count = payload.readUInt32BE(0);
    if (payload.length !== 4 + 8 * count)
      throw new VestaError('PROTOCOL_ERROR', 'generate answer length does not match its count');
    const ids = new Array<bigint>(count);
    for (let i = 0, at = 4; i < count; i++, at += 8) ids[i] = payload.readBigUInt64BE(at);
    return ids;
  },
} as const;
