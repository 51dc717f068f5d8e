import type { HoldTurn } from './LeaseHold.js';

/**
 * A renewal turn of a confirmed lease, for a test that drives a store's {@link LeaseHold} itself
 * (reached with `leaseHold`): held under `era`, publishing `markMs()`; with `closesAtMark`, its
 * lease closes once the turn took its mark, while the turn's write is on its way; the mark last
 * published stands for `markStandsMs` (0 unless given: a turn writes).
 */
export function renewalTurn(options: {
  readonly era: string | undefined;
  readonly markMs: () => number;
  readonly closesAtMark: boolean;
  readonly markStandsMs?: number;
}): HoldTurn {
  let closed = false;
  return {
    everConfirmed: true,
    era: options.era,
    get closed() {
      return closed;
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
