import { VestaError } from '../errors/VestaError.js';
import { objectWith } from './optionTypes.js';

/**
 * What a server needs of segment mode's numbers: `@vesta/segment`'s `SegmentService` (declared
 * here, structurally, so that the servers do not depend on `@vesta/segment`).
 */
export interface SegmentNumbers {
  /** The next number of `key`. */
  segment(key: string): Promise<bigint>;
  /** The next `n` numbers of `key`, increasing. */
  segments(key: string, n: number): Promise<bigint[]>;
}

/**
 * The declaration of a server's `segments` option (REST's and the TCP id server's): a segment
 * service (`createSegmentService`), which the server uses and never closes. @default none
 */
export const segmentsOption = objectWith<SegmentNumbers>(
  'a segment service (createSegmentService)',
  'segment',
  'segments',
).optional();

/**
 * A server's segment service, to serve `key` from; SEGMENT_KEY_UNKNOWN for every key when the
 * server runs without one (REST's and the id server's answer alike).
 */
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
