import { VestaError } from '@vesta/core';
import { MAX_SEGMENT_NUMBER } from './checkNewKey.js';

/** SEGMENT_KEY_UNKNOWN: a key never created. */
export function unknownSegmentKey(key: string): VestaError {
  return new VestaError(
    'SEGMENT_KEY_UNKNOWN',
    `no segment key ${JSON.stringify(key)}: create it first (store.createKey)`,
    { details: { key } },
  );
}

/** SEGMENT_SEQUENCE_OVERFLOW: a claim would pass 2^63 - 2; the key has run out for good (it never wraps). */
export function segmentKeyRanOut(key: string): VestaError {
  return new VestaError(
    'SEGMENT_SEQUENCE_OVERFLOW',
    `segment key ${JSON.stringify(key)} has run out: its next range would pass 2^63 - 2, the largest number a key serves`,
    { details: { key, largest: String(MAX_SEGMENT_NUMBER - 1n) } },
  );
}

/** `cause` when it is a VestaError, else COORDINATOR_UNAVAILABLE saying `what` failed. */
export function storeUnavailable(
  what: string,
  cause: unknown,
  details?: Readonly<Record<string, unknown>>,
): VestaError {
  if (VestaError.is(cause)) return cause;
  return new VestaError(
    'COORDINATOR_UNAVAILABLE',
    `${what}: ${cause instanceof Error ? cause.message : String(cause)}`,
    details === undefined ? { cause } : { cause, details },
  );
}
