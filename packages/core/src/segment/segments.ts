import type { VestaErrorCode } from '../errors/errorCodes.js';
import { VestaError } from '../errors/VestaError.js';
import { objectWith } from '../options/optionTypes.js';

/** How a segment claim ended: a fresh range, a handed-back one, or the error's code. */
export type SegmentClaimOutcome = 'fresh' | 'handed_back' | VestaErrorCode;

/** Metric hooks of `@vesta/segment`'s service, declared here so that neither it nor the metrics depend on the other. */
export interface SegmentServiceObserver {
  /** A claim of `key` from the store ended (`numbers`: the range's size; 0 for an error). */
  onClaim?(key: string, outcome: SegmentClaimOutcome, numbers: number): void;
  /** `count` numbers of `key` were handed out. */
  onServed?(key: string, count: number): void;
  /** The first range of `key` came (once per key); `buffered()` reads the numbers held, 0 once closed. */
  onKey?(key: string, buffered: () => number): void;
}

/** The longest key, in code points (as JSON Schema's `maxLength` counts). */
export const MAX_SEGMENT_KEY_LENGTH = 200;

// Controls, noncharacters, and lone surrogates (no UTF-8 for them: two keys would become one).
const FORBIDDEN = /[\p{Cc}\p{Cs}\p{Noncharacter_Code_Point}]/u;

/** The one rule of a segment key, wherever one is given: 1 to 200 code points, none forbidden. */
export function checkSegmentKey(key: unknown): string {
  if (
    typeof key !== 'string' ||
    key.length === 0 ||
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

/** What a server needs of `@vesta/segment`'s `SegmentService`, declared here structurally. */
export interface SegmentNumbers {
  segment(key: string): Promise<bigint>;
  segments(key: string, n: number): Promise<bigint[]>;
}

/** A server's `segments` option: a segment service, which the server uses and never closes. */
export const segmentsOption = objectWith<SegmentNumbers>(
  'a segment service (createSegmentService)',
  'segment',
  'segments',
).optional();

/** A server's segment service, or SEGMENT_KEY_UNKNOWN for every key when it runs without one. */
export function segmentNumbersOf(
  segments: SegmentNumbers | undefined,
  key: string,
): SegmentNumbers {
  if (segments !== undefined) return segments;
  throw new VestaError(
    'SEGMENT_KEY_UNKNOWN',
    `no segment key ${JSON.stringify(key)} here: this server runs without a segment store`,
    { details: { key } },
  );
}
