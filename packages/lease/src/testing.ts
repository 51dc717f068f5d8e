/* `@vesta/lease/testing`: fault injection for tests of coordinator leases. */
import { internalsOf, type HoldRenewal, type HoldTurn } from './LeaseProvider.js';
import type { LeaseJournalEntry } from './LeaseJournal.js';
import type { HoldVerbs } from './LeaseStore.js';

/**
 * Drops a coordinator lease as a crashed process would: renewals stop, nothing is published or
 * released.
 */
export const abandonLease = (lease: object): void => internalsOf(lease).abandon();

/** A coordinator lease's hold: one renewal turn of its policy, driven by a test. */
export const leaseHold = (lease: object): { renew(turn: HoldTurn): Promise<HoldRenewal> } => ({
  renew: internalsOf(lease).renew,
});

/** The store verbs a coordinator lease holds its id over. */
export const leaseHoldVerbs = (lease: object): HoldVerbs<unknown> => internalsOf(lease).verbs;

/**
 * A renewal turn of a confirmed lease for `leaseHold`: with `closesAtMark`, the lease closes once
 * the turn took its mark (or kept); with `closedAfterReads: n`, from the (n+1)-th look at `closed`.
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

/** The `claimed` journal entry numbered `n` (machine id `n % 1024`), for journal tests. */
export const claimedJournalEntry = (n: number): LeaseJournalEntry => ({
  event: 'claimed',
  machineId: n % 1024,
  holder: `holder-${n}`,
  instance: `i-${n}`,
  atMs: 1_700_000_000_000 + n,
  floorMarkMs: 0,
});
