import { VestaError } from '@vesta/core';

/** The largest step a store takes (PostgreSQL's `integer`). */
export const MAX_SEGMENT_STEP = 2_147_483_647;

export function checkStep(step: unknown): number {
  if (typeof step !== 'number' || !Number.isInteger(step) || step < 1 || step > MAX_SEGMENT_STEP) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `a segment step must be a whole number from 1 to ${MAX_SEGMENT_STEP}, got ${String(step)}`,
    );
  }
  return step;
}
