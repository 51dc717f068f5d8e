import { VestaError } from '../errors/VestaError.js';

/** The longest key: a PostgreSQL text key or a Redis key name stays small. */
export const MAX_SEGMENT_KEY_LENGTH = 200;

/**
 * Checks a segment key (a business key): 1 to 200 characters, no control characters. The one
 * rule of the segment stores, the segment service, `vesta segment` and the servers' SEGMENT and
 * `/segment/{key}`. Throws INVALID_ARGUMENT.
 */
export function checkSegmentKey(key: unknown): string {
  if (
    typeof key !== 'string' ||
    key.length === 0 ||
    key.length > MAX_SEGMENT_KEY_LENGTH ||
    // eslint-disable-next-line no-control-regex
    /[\x00-\x1f\x7f]/.test(key)
  ) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `a segment key must be 1 to ${MAX_SEGMENT_KEY_LENGTH} characters without control characters, got ${typeof key === 'string' ? JSON.stringify(key.slice(0, 80)) : String(key)}`,
      { details: { field: 'key' } },
    );
  }
  return key;
}
