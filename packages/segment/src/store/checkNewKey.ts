import { VestaError } from '@vesta/core';
import { checkSegmentKey } from '@vesta/core/kit';
import { checkStep } from './checkStep.js';
import type { SegmentKeyOptions } from './SegmentStore.js';

/** The bound of a key's `max` (PostgreSQL's `bigint`, Redis's integers): the largest number served is 2^63 - 2. */
export const MAX_SEGMENT_NUMBER = 2n ** 63n - 1n;

/** Checks a key's first number: a bigint from 0 to 2^63 - 2. INVALID_ARGUMENT. */
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

/**
 * Checks what `createKey` is given (INVALID_ARGUMENT), filled. A key whose first range would pass
 * 2^63 - 2 could never serve a number: refused rather than created.
 */
export function checkNewKey(
  key: string,
  options: SegmentKeyOptions,
): { readonly step: number; readonly start: bigint } {
  checkSegmentKey(key);
  const step = checkStep(options.step);
  const start = checkStart(options.start ?? 0n);
  if (start + BigInt(step) > MAX_SEGMENT_NUMBER) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `segment key ${JSON.stringify(key)} created at ${start} with step ${step} could never serve: its first range would pass 2^63 - 2, the largest number a key serves (give a lower start or step)`,
      { details: { field: 'start', key, start: String(start), step } },
    );
  }
  return { step, start };
}
