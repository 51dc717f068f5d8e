import { VestaError } from '@vesta/core';

/** The largest number a key reaches: PostgreSQL's `bigint`, Redis's integers. */
export const MAX_SEGMENT_NUMBER = 2n ** 63n - 1n;

/** Checks a key's first number: a bigint from 0 to {@link MAX_SEGMENT_NUMBER}. INVALID_ARGUMENT. */
export function checkStart(start: unknown): bigint {
  if (typeof start !== 'bigint' || start < 0n || start > MAX_SEGMENT_NUMBER) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `a segment key's start must be a bigint from 0 to 2^63 - 1, got ${typeof start === 'bigint' ? `${start}n` : String(start)}`,
    );
  }
  return start;
}
