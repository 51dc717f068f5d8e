import type { HoldTurn } from './LeaseHold.js';

/**
 * A renewal turn of a confirmed lease, for a test that drives a store's {@link LeaseHold} itself
 * (reached with `leaseHold`): held under `era`, publishing `markMs()`; with `closesAtMark`, its
 * lease closes once the turn took its mark, while the turn's write is on its way.
 */
export function renewalTurn(options: {
  readonly era: string | undefined;
  readonly markMs: () => number;
  readonly closesAtMark: boolean;
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
    // A mark that stands no longer: a turn writes.
    markStandsMs: 0,
    keep: () => {
      closed = options.closesAtMark;
    },
  };
}
