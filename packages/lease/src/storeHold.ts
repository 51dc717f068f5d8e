import {
  holdingOf,
  type HoldLoss,
  type HoldRenewal,
  type HoldTurn,
  type HoldVerbs,
  type LeaseClaimant,
  type LeaseHold,
} from './LeaseStore.js';

/** How a {@link storeHold} starts: its claim, or none after a start from the cache. */
export interface StoreHoldStart<V> {
  readonly claimant: LeaseClaimant;
  /** A cached id is taken back only at or below this mark. */
  readonly floorMarkMs: number;
  readonly claimed: { readonly era: string; readonly version: V } | undefined;
}

const takenMeanwhile: HoldLoss = {
  lost: 'other',
  why: 'the cached id was taken by another holder meanwhile, or the store lost its data',
};

/**
 * The hold of one claimed (or cached) id over a store's {@link HoldVerbs}, one policy for every
 * store: each turn publishes the next mark on the version last written, a conflict is read again
 * (a record still this start's is adopted); after a start from the cache (or a lapse of the
 * store's own lease) the id is taken back only under the open era the cache names, from a record
 * of this key whose mark is not past the cached one (after a lapse: still this start's), once no
 * earlier start holds it live.
 */
export function storeHold<V>(verbs: HoldVerbs<V>, start: StoreHoldStart<V>): LeaseHold {
  const c = start.claimant;
  let held = start.claimed;
  // A take-back whose answer was lost, found by a later read: its next write confirms it.
  let takenBackUnder: string | undefined;

  const renew = async (turn: HoldTurn, era: string, at: V): Promise<HoldRenewal> => {
    if (verbs.keep !== undefined) {
      const kept = await verbs.keep(turn);
      if (kept !== undefined) return kept;
    }
    const written = await verbs.renew(era, holdingOf(c, turn.mark()), at, turn);
    if (turn.closed) return 'missed';
    if (written === 'conflict') {
      // Perhaps on a write of its own whose answer was lost: read again before giving up.
      const { era: now, record } = await verbs.read();
      if (turn.closed) return 'missed';
      if (now?.era !== era || !now.open) return { lost: 'era' };
      if (record?.owner !== c.key || record.instance !== c.instance) {
        return { lost: 'moved', owner: record?.owner ?? null };
      }
      held = { era, version: record.version };
      return 'missed';
    }
    held = { era, version: written };
    if (verbs.counts !== undefined && !(await verbs.counts())) return 'missed';
    if (takenBackUnder === undefined) return 'confirmed';
    const confirmedUnder = takenBackUnder;
    takenBackUnder = undefined;
    return { confirmedUnder };
  };

  const retake = async (
    turn: HoldTurn,
    retakeWith: NonNullable<HoldVerbs<V>['retake']>,
  ): Promise<HoldRenewal> => {
    const { era, record } = await verbs.read();
    if (turn.closed) return 'missed';
    if (era === undefined || !era.open || (turn.era !== undefined && era.era !== turn.era)) {
      return { lost: 'era' };
    }
    const mine = record?.owner === c.key && record.instance === c.instance;
    // From the cache: this start's own take-back landed though its answer was lost.
    if (!turn.everConfirmed && mine) {
      held = { era: era.era, version: record.version };
      takenBackUnder = era.era;
      return 'missed';
    }
    // Still this start's (after a lapse), or this key's, untouched since the cache.
    const ours = turn.everConfirmed
      ? mine
      : record?.owner === c.key && record.markMs <= start.floorMarkMs;
    if (!ours || record === undefined) {
      return turn.everConfirmed ? { lost: 'moved', owner: record?.owner ?? null } : takenMeanwhile;
    }
    // Held live by an earlier start of this key that died: its store-side lease goes in time.
    if (record.live) return 'missed';
    const holding = holdingOf(c, turn.mark(record.markMs));
    const written = await retakeWith(era.era, holding, record.version, turn);
    if (turn.closed) return 'missed';
    if (written === 'conflict') return takenMeanwhile;
    held = { era: era.era, version: written };
    return { confirmedUnder: era.era };
  };

  const { reconnect, quiet, closeOnLoss, journal } = verbs;
  const hold: LeaseHold = {
    renew: async (turn) => {
      if (held !== undefined && verbs.lapsed?.() !== true) {
        return renew(turn, held.era, held.version);
      }
      return verbs.retake === undefined ? 'missed' : retake(turn, verbs.retake);
    },
    release: async (markMs) =>
      held !== undefined &&
      verbs.release(held.era, holdingOf(c, markMs, c.stableKey), held.version),
    close: () => verbs.close(),
    ...(reconnect === undefined ? {} : { reconnect: () => verbs.reconnect?.() }),
    ...(quiet === undefined ? {} : { quiet }),
    ...(closeOnLoss === undefined ? {} : { closeOnLoss }),
    ...(journal === undefined ? {} : { journal }),
  };
  verbsOfHold.set(hold, verbs);
  return hold;
}

/** The verbs each hold runs on, for a store's test hooks (`@vesta/lease/testing`). */
export const verbsOfHold = new WeakMap<LeaseHold, object>();
