import { VestaError, type IdLayoutWidths, type IdType } from '@vesta/core';
import { allocFrame } from './Frame.js';
import { Op, RESPONSE_BIT } from './Op.js';
import { HEADER_BYTES } from './protocolConstants.js';

/** What a server answers to a hello: who it is and the layout of the ids it issues. */
export interface Welcome {
  readonly protocolVersion: number;
  readonly machine: number;
  readonly genMethod: number;
  readonly type: IdType;
  readonly version: number;
  readonly layout: IdLayoutWidths;
  /** The epoch in Unix ms. */
  readonly epochMs: number;
  /** The largest count of one GENERATE. */
  readonly maxBatch: number;
  /** How many requests the server works on at once per connection; more wait in its buffer. */
  readonly maxInFlight: number;
}

const BYTES = 35;

/**
 * The handshake answer: u16 protocol version, u16 machine, u32 genMethod, u8 type, u32 version,
 * 6 x u8 layout widths (machine, seq, time, genMethod, type, version), u64 epoch ms,
 * u32 max batch, u32 max in flight.
 */
export const WelcomeMessage = {
  encode(requestId: number, w: Welcome): Buffer {
    const frame = allocFrame(requestId, Op.HELLO | RESPONSE_BIT, BYTES);
    let at = HEADER_BYTES;
    at = frame.writeUInt16BE(w.protocolVersion, at);
    at = frame.writeUInt16BE(w.machine, at);
    at = frame.writeUInt32BE(w.genMethod, at);
    at = frame.writeUInt8(w.type, at);
    at = frame.writeUInt32BE(w.version, at);
    const l = w.layout;
    for (const bits of [
      l.machineBits,
      l.seqBits,
      l.timeBits,
      l.genMethodBits,
      l.typeBits,
      l.versionBits,
    ]) {
      at = frame.writeUInt8(bits, at);
    }
    at = frame.writeBigUInt64BE(BigInt(w.epochMs), at);
    at = frame.writeUInt32BE(w.maxBatch, at);
    frame.writeUInt32BE(w.maxInFlight, at);
    return frame;
  },

  decode(payload: Buffer): Welcome {
    if (payload.length !== BYTES)
      throw new VestaError(
        'PROTOCOL_ERROR',
        `welcome payload must be ${BYTES} bytes, got ${payload.length}`,
      );
    const type = payload.readUInt8(8);
    if (type !== 0 && type !== 1)
      throw new VestaError('PROTOCOL_ERROR', `welcome names an unknown id type ${type}`);
    const epoch = payload.readBigUInt64BE(19);
    if (epoch > BigInt(Number.MAX_SAFE_INTEGER))
      throw new VestaError('PROTOCOL_ERROR', 'welcome epoch is out of range');
    return {
      protocolVersion: payload.readUInt16BE(0),
      machine: payload.readUInt16BE(2),
      genMethod: payload.readUInt32BE(4),
      type,
      version: payload.readUInt32BE(9),
      layout: {
        machineBits: payload.readUInt8(13),
        seqBits: payload.readUInt8(14),
        timeBits: payload.readUInt8(15),
        genMethodBits: payload.readUInt8(16),
        typeBits: payload.readUInt8(17),
        versionBits: payload.readUInt8(18),
      },
      epochMs: Number(epoch),
      maxBatch: payload.readUInt32BE(27),
      maxInFlight: payload.readUInt32BE(31),
    };
  },
} as const;
