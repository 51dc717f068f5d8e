import { VestaError } from '@vesta/core';
import { MAX_SEGMENT_NUMBER } from './checkStart.js';

/**
 * The SEGMENT_SEQUENCE_OVERFLOW error every store throws for a claim that would take a key past
 * {@link MAX_SEGMENT_NUMBER}: the key has run out (for good: it never wraps), the store is fine.
 */
export function segmentKeyRanOut(key: string): VestaError {
  return new VestaError(
    'SEGMENT_SEQUENCE_OVERFLOW',
    `segment key ${JSON.stringify(key)} has run out: its next range would pass 2^63 - 1`,
    { details: { key, max: String(MAX_SEGMENT_NUMBER) } },
  );
}
