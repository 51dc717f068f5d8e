import type { VestaErrorCode } from '../errors/errorCodes.js';

/** How a segment claim ended: a fresh range, a handed-back one, or the error's code. */
export type SegmentClaimOutcome = 'fresh' | 'handed_back' | VestaErrorCode;

/**
 * Metric hooks of `@vesta/segment`'s service (its `observer` option); the servers' metrics
 * implement it (`VestaMetrics.segmentObserver`). Declared here so that neither package depends
 * on the other.
 */
export interface SegmentServiceObserver {
  /** A claim of `key` from the store ended (`numbers`: the range's size; 0 for an error). */
  onClaim?(key: string, outcome: SegmentClaimOutcome, numbers: number): void;
  /** `count` numbers of `key` were handed out. */
  onServed?(key: string, count: number): void;
  /**
   * The store gave the service its first range of `key`; `buffered()` reads the numbers of `key`
   * the service holds now (the rest of the current segment and of the next), 0 once closed.
   * Called once per key and service (never for a key the store does not have).
   */
  onKey?(key: string, buffered: () => number): void;
}
