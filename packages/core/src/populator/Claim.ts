/** A run of sequence numbers claimed in one time unit: ids `seq` .. `seq + count - 1` at `time`. */
export interface Claim {
  time: number;
  seq: number;
  count: number;
  /** How far the clock was behind the last time used, when a step back was absorbed; else 0. */
  behindMs: number;
  /** Whether the claim opened a unit the clock has not reached yet (see `maxLeadMs`). */
  borrowed: boolean;
  /** The wall clock (Unix ms) the claim was planned at: a UUID's millisecond within its unit. */
  atMs: number;
}

export function newClaim(): Claim {
  return { time: 0, seq: 0, count: 0, behindMs: 0, borrowed: false, atMs: 0 };
}
