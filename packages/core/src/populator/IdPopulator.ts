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

/** The populator names, chosen by the `populator` option. */
export type PopulatorKind = 'sync' | 'lock' | 'atomic';

/** Turns (clock, last time, sequence) into the next claim; implementations keep the state. */
export interface IdPopulator {
  readonly kind: PopulatorKind;
  readonly canClaimSync: boolean;
  readonly lastTime: number;
  /** How far ahead of the clock it borrows units (`maxLeadMs`); absent: 0. */
  readonly maxLeadMs?: number;
  /** Whether calls wait in `claim` for the next unit: a new call must queue behind them. */
  readonly waiting: boolean;
  /** Claims without waiting; false (and `out.time` = the unit to wait for) when used up. */
  tryClaim(max: number, out: Claim): boolean;
  /** Claims, busy-waiting for the next unit when the sequence is used up. */
  claimSync(max: number, out: Claim): void;
  /** Claims, awaiting the next unit on a timer when the sequence is used up. */
  claim(max: number): Promise<Claim>;
  /** At start-up: treats every unit up to `time` as used up (ids continue above the mark). */
  resumeAfter(time: number): void;
  /** At close: fails the calls waiting for the next unit with SERVICE_CLOSED. */
  close?(): void;
}
