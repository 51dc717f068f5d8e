import { VestaError } from '@vesta/core';

/**
 * Writes a number field as the u64 at `offset` and answers the offset after it (the writing side
 * of {@link readSafeU64}): INVALID_ARGUMENT, naming the field, unless it is a whole number of 0
 * or more that a JavaScript number holds exactly.
 */
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
