/** A run of sequence numbers claimed in one time unit: ids `seq` .. `seq + count - 1` at `time`. */
export interface Claim {
  time: number;
  seq: number;
  count: number;
  /** How far the clock was behind the last time used, when a step back was absorbed; else 0. */
  behindMs: number;
  /** Whether the claim opened a unit the clock has not reached yet (see `maxLeadMs`). */
  borrowed: boolean;
}

export function newClaim(): Claim {
  return { time: 0, seq: 0, count: 0, behindMs: 0, borrowed: false };
}
