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
