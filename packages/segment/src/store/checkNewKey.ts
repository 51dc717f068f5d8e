import { VestaError } from '@vesta/core';
import { checkSegmentKey } from '@vesta/core/kit';
import { checkStart, MAX_SEGMENT_NUMBER } from './checkStart.js';
import { checkStep } from './checkStep.js';
import type { SegmentKeyOptions } from './SegmentStore.js';

/**
 * Checks what `createKey` is given (INVALID_ARGUMENT); the step and the start, filled. A key whose
 * first range would pass 2^63 - 2 could never serve a number (a claim takes the key's step at
 * least): refused, never created to answer SEGMENT_SEQUENCE_OVERFLOW from its first call.
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
