import { VestaError } from '../errors/VestaError.js';

/**
 * The longest key, in code points (Unicode characters, as JSON Schema's `maxLength` counts; not
 * UTF-16 units): a PostgreSQL text key or a Redis key name stays small (800 bytes of UTF-8 at most).
 */
export const MAX_SEGMENT_KEY_LENGTH = 200;

/**
 * What a key may not hold: C0 and C1 controls and DEL (`Cc`), a lone surrogate (`Cs`: no UTF-8
 * for it, so a store or a wire would turn it into U+FFFD and two keys into one) and the
 * noncharacters (U+FDD0 to U+FDEF, U+FFFE and U+FFFF of every plane: never for interchange).
 */
const FORBIDDEN = /[\p{Cc}\p{Cs}\p{Noncharacter_Code_Point}]/u;

/**
 * Checks a segment key (a business key): 1 to 200 code points, none of them a control character,
 * a lone surrogate or a noncharacter. The one rule of the segment stores, the segment service,
 * `vesta segment` and the servers' SEGMENT and `/segment/{key}`. Throws INVALID_ARGUMENT.
 */
export function checkSegmentKey(key: unknown): string {
  if (
    typeof key !== 'string' ||
    key.length === 0 ||
    // A code point is one or two UTF-16 units: only a key longer than the limit in units is counted.
    (key.length > MAX_SEGMENT_KEY_LENGTH && [...key].length > MAX_SEGMENT_KEY_LENGTH) ||
    FORBIDDEN.test(key)
  ) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `a segment key must be 1 to ${MAX_SEGMENT_KEY_LENGTH} characters (code points) without control characters, lone surrogates or noncharacters, got ${typeof key === 'string' ? JSON.stringify(key.slice(0, 80)) : String(key)}`,
      { details: { field: 'key' } },
    );
  }
  return key;
}
