import { VestaError } from '@vesta/core';
import { HEADER_BYTES, LENGTH_OVERHEAD } from './protocolConstants.js';

/** One decoded frame. `payload` is a view into the received bytes: copy it to keep it. */
export interface Frame {
  readonly requestId: number;
  readonly op: number;
  readonly payload: Buffer;
}

/** A frame with its header (u32 length of the rest, u32 request id, u8 op) and room for the payload. */
export function allocFrame(requestId: number, op: number, payloadLength: number): Buffer {
  const frame = Buffer.allocUnsafe(HEADER_BYTES + payloadLength);
  frame.writeUInt32BE(LENGTH_OVERHEAD + payloadLength, 0);
  frame.writeUInt32BE(requestId >>> 0, 4);
  frame[8] = op;
  return frame;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** PROTOCOL_ERROR unless a fixed-size payload is `bytes` long (`what` names it). */
export function checkPayloadBytes(payload: Buffer, bytes: number, what: string): void {
  if (payload.length !== bytes) {
    throw new VestaError('PROTOCOL_ERROR', `${what} must be ${bytes} bytes, got ${payload.length}`);
  }
}

/** The count of an answer of u32 count, then count items of `itemBytes`; PROTOCOL_ERROR when they disagree. */
export function readListCount(payload: Buffer, itemBytes: number, what: string): number {
  if (payload.length < 4) throw new VestaError('PROTOCOL_ERROR', `${what} is truncated`);
  const count = payload.readUInt32BE(0);
  if (payload.length !== 4 + itemBytes * count) {
    throw new VestaError('PROTOCOL_ERROR', `${what} length does not match its count`);
  }
  return count;
}

/** A u64 field that must fit a JavaScript number: INVALID_ARGUMENT above 2^53 - 1. */
export function readSafeU64(payload: Buffer, offset: number, name: string): number {
  const value = payload.readBigUInt64BE(offset);
  if (value > MAX_SAFE)
    throw new VestaError('INVALID_ARGUMENT', `${name} ${value} is out of range`);
  return Number(value);
}

/** Writes a safe whole number of 0 or more as a u64 (INVALID_ARGUMENT otherwise); the offset after it. */
export function writeSafeU64(frame: Buffer, value: number, offset: number, name: string): number {
  // A caller in plain JavaScript may pass anything.
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `${name} must be a whole number of 0 or more, got ${String(value)}`,
    );
  }
  return frame.writeBigUInt64BE(BigInt(value), offset);
}

/** An answer of u32 count, then count x u64 (GENERATE's ids, SEGMENT's numbers). */
export function encodeU64List(requestId: number, op: number, values: readonly bigint[]): Buffer {
  const frame = allocFrame(requestId, op, 4 + 8 * values.length);
  frame.writeUInt32BE(values.length, HEADER_BYTES);
  let at = HEADER_BYTES + 4;
  for (const value of values) at = frame.writeBigUInt64BE(value, at);
  return frame;
}
