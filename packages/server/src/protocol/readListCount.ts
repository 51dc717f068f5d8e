import { VestaError } from '@vesta/core';

/**
 * The count of an answer of u32 count, then count items of `itemBytes` each (GENERATE's ids,
 * GENERATE_UUID's UUIDs): PROTOCOL_ERROR, `what` naming the answer, when it is truncated or its
 * length does not match its count.
 */
export function readListCount(payload: Buffer, itemBytes: number, what: string): number {
  if (payload.length < 4) throw new VestaError('PROTOCOL_ERROR', `${what} is truncated`);
  const count = payload.readUInt32BE(0);
  if (payload.length !== 4 + itemBytes * count) {
    throw new VestaError('PROTOCOL_ERROR', `${what} length does not match its count`);
  }
  return count;
}
