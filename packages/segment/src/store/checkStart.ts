import { VestaError } from '@vesta/core';

/**
 * The bound of a key's `max`, the end (exclusive) of its last range: PostgreSQL's `bigint`,
 * Redis's integers. So the largest number a key serves is `MAX_SEGMENT_NUMBER - 1n`, 2^63 - 2.
 */
export const MAX_SEGMENT_NUMBER = 2n ** 63n - 1n;

/** Checks a key's first number: a bigint from 0 to 2^63 - 2 (the largest served). INVALID_ARGUMENT. */
export function checkStart(start: unknown): bigint {
  if (typeof start !== 'bigint' || start < 0n || start >= MAX_SEGMENT_NUMBER) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `a segment key's start must be a bigint from 0 to 2^63 - 2 (the largest number a key serves), got ${typeof start === 'bigint' ? `${start}n` : String(start)}`,
      { details: { field: 'start' } },
    );
  }
  return start;
}
