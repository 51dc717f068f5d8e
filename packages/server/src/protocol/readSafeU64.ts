import { VestaError } from '@vesta/core';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * A u64 field that must hold a whole number (a layout field, a time, a date): INVALID_ARGUMENT
 * when it lies above 2^53 - 1, where a JavaScript number would round it.
 */
export function readSafeU64(payload: Buffer, offset: number, name: string): number {
  const value = payload.readBigUInt64BE(offset);
  if (value > MAX_SAFE)
    throw new VestaError('INVALID_ARGUMENT', `${name} ${value} is out of range`);
  return Number(value);
}
