import type { Claim } from './Claim.js';

/** The populator names, chosen by the `populator` option. */
export type PopulatorKind = 'sync' | 'lock' | 'atomic';

/**
 * Turns (clock, last time, sequence) into the next claim of sequence numbers. Implementations
 * differ in where the state lives (plain fields, or shared memory for worker threads) and whether
 * a synchronous claim is offered; an asynchronous claim that finds its unit used up waits in the
 * one async-mutex queue of {@link BaseIdPopulator}, whichever the implementation.
 */
export interface IdPopulator {
  readonly kind: PopulatorKind;
  /** Whether {@link claimSync} is offered (sync and atomic). */
  readonly canClaimSync: boolean;
  /** The last time unit claimed (for the high-water mark at close). */
  readonly lastTime: number;
  /** How far ahead of the clock it borrows units (the `maxLeadMs` option); absent: 0. */
  readonly maxLeadMs?: number;
  /** Whether calls wait in `claim` for the next unit: a new call must queue behind them. */
  readonly waiting: boolean;
  /** Claims without waiting; false (and `out.time` = the unit to wait for) when used up. */
  tryClaim(max: number, out: Claim): boolean;
  /** Claims, busy-waiting for the next unit when the sequence is used up. */
  claimSync(max: number, out: Claim): void;
  /** Claims, awaiting the next unit on a timer when the sequence is used up. */
  claim(max: number): Promise<Claim>;
  /**
   * At start-up: treats every unit up to `time` as used up, so that ids continue above a
   * durable high-water mark even when the clock then steps back within the tolerance.
   */
  resumeAfter(time: number): void;
  /** At close: fails the calls waiting for the next unit, at once, with SERVICE_CLOSED. */
  close?(): void;
}
