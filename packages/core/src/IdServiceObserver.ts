/** Hooks for metrics: the REST and TCP servers count these. Every hook is optional. */
export interface IdServiceObserver {
  /** The clock stepped back by `behindMs` and the step was absorbed (within tolerance). */
  onClockRollback?(behindMs: number): void;
  /** A time unit's sequence was used up; the caller waits for the next unit. */
  onSequenceExhausted?(): void;
  /** With `maxLeadMs`: a unit starting at `unitStartMs` was opened before the clock reached it. */
  onTimeBorrowed?(unitStartMs: number): void;
}
