/** A range of numbers `[start, end)` of one key: `start` is the first, `end` one past the last. */
export interface SegmentRange {
  readonly start: bigint;
  readonly end: bigint;
}

/** What a claim answers: the range, and the key's stored step (the engine's smallest step). */
export interface SegmentClaim extends SegmentRange {
  /** The step stored with the key (`createKey`, `setStep`). */
  readonly keyStep: number;
  /** Whether the range is one handed back by a clean close (not a fresh one off the key's max). */
  readonly handedBack: boolean;
}
