import { VestaError } from '@vesta/core';

/** The SEGMENT_KEY_UNKNOWN error every store throws for a key never created. */
export function unknownSegmentKey(key: string): VestaError {
  return new VestaError(
    'SEGMENT_KEY_UNKNOWN',
    `no segment key ${JSON.stringify(key)}: create it first (store.createKey)`,
    { details: { key } },
  );
}
