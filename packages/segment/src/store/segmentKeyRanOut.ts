import { VestaError } from '@vesta/core';
import { MAX_SEGMENT_NUMBER } from './checkStart.js';

/**
 * The SEGMENT_SEQUENCE_OVERFLOW error every store throws for a claim that would take a key's `max`
 * past {@link MAX_SEGMENT_NUMBER}, so a number past 2^63 - 2: the key has run out (for good: it
 * never wraps), the store is fine.
 */
export function segmentKeyRanOut(key: string): VestaError {
  return new VestaError(
    'SEGMENT_SEQUENCE_OVERFLOW',
    `segment key ${JSON.stringify(key)} has run out: its next range would pass 2^63 - 2, the largest number a key serves`,
    { details: { key, largest: String(MAX_SEGMENT_NUMBER - 1n) } },
  );
}
