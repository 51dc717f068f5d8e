/** Hooks for metrics: the REST and TCP servers count these. Every hook is optional. */
export interface IdServiceObserver {
  /** The clock stepped back by `behindMs` and the step was absorbed (within tolerance). */
  onClockRollback?(behindMs: number): void;
  /** A time unit's sequence was used up; the caller waits for the next unit. */
  onSequenceExhausted?(): void;
  /**
   * With `maxLeadMs`: a time unit's sequence was used up and the next unit was opened before the
   * clock reached it, without waiting; ids now run up to `unitStartMs` (Unix ms, the start of
   * that unit) ahead of the clock. Called once per borrowed unit.
   */
  onTimeBorrowed?(unitStartMs: number): void;
}
