import type { HoldTurn } from './LeaseHold.js';

/**
 * A renewal turn of a confirmed lease, for a test that drives a store's {@link LeaseHold} itself
 * (reached with `leaseHold`): held under `era`, publishing `markMs()`; with `closesAtMark`, its
 * lease closes once the turn took its mark, while the turn's write is on its way; the mark last
 * published stands for `markStandsMs` (0 unless given: a turn writes). With `closedAfterReads`, the
 * lease reads as closed from the turn's (n+1)-th look at `closed` on: a hold that looks once
 * before its write and once after it (`1`) sends the write and drops its answer, as when the
 * reply is lost.
 */
export function renewalTurn(options: {
  readonly era: string | undefined;
  readonly markMs: () => number;
  readonly closesAtMark: boolean;
  readonly markStandsMs?: number;
  readonly closedAfterReads?: number;
}): HoldTurn {
  let closed = false;
  let reads = 0;
  return {
    everConfirmed: true,
    era: options.era,
    get closed() {
      reads++;
      return closed || (options.closedAfterReads !== undefined && reads > options.closedAfterReads);
    },
    mark: () => {
      closed = options.closesAtMark;
      return options.markMs();
    },
    markStandsMs: options.markStandsMs ?? 0,
    keep: () => {
      closed = options.closesAtMark;
    },
  };
}
