import { objectWith } from '@vesta/core/kit';

/**
 * What the REST routes of segment mode need of `@vesta/segment`'s `createSegmentService`
 * (declared here so the REST package does not depend on it).
 */
export interface RestSegments {
  /** The next number of `key`. */
  segment(key: string): Promise<bigint>;
  /** The next `n` numbers of `key`, increasing. */
  segments(key: string, n: number): Promise<bigint[]>;
}

/** The declaration of the `segments` option, the app's and the server's. */
export const segmentsOption = objectWith<RestSegments>(
  'a segment service (createSegmentService)',
  'segment',
  'segments',
).optional();
