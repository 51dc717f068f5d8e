import type { VestaErrorCode } from '@vesta/core';
import { holdingOf, type LeaseClaimant, type LeaseHolding } from './LeaseStore.js';
import type { HoldLoss, HoldRenewal, HoldTurn, LeaseHold } from './LeaseHold.js';
import type { LeaseJournal } from './LeaseJournal.js';
import { rereadHeld } from './rereadHeld.js';

/**
 * What a verb that sends more than one request looks at between them: once the lease closed, it
 * sends nothing more (its answer is then ignored).
 */
export type Closable = Pick<HoldTurn, 'closed'>;

/** A held id as a store reads it again: the era that stands, and the id's record. */
export interface HeldRecord<V> {
  /** The allocation era now (undefined: none). */
  readonly era: { readonly era: string; readonly open: boolean } | undefined;
  /** The id's record (undefined: none). */
  readonly record:
    | {
        readonly owner: string | null;
        readonly instance: string | null;
        readonly markMs: number;
        /** A live holder has it (its store-side lease has not expired). */
        readonly live: boolean;
        readonly version: V;
      }
    | undefined;
}

/**
 * A store's data verbs on one held id: each writes or reads and says what it found, with no
 * policy of its own (that is {@link storeHold}'s). `V` is the record's version as the store
 * compares it (a number, a revision); a store that compares the holding instance instead keeps
 * it for the verbs that need one.
 */
export interface HoldVerbs<V> {
  /**
   * Publishes `holding` (its mark) while the era `era` stands and the record names this start
   * (at `version`, where the store compares one): the record's new version, or `'conflict'`
   * (then the record is read again).
   */
  renew(era: string, holding: LeaseHolding, version: V, turn: Closable): Promise<V | 'conflict'>;
  /** The era and the id's record as they are now. */
  read(): Promise<HeldRecord<V>>;
  /**
   * Takes the id back after a start from the cache: writes `holding` under `era` if the record
   * is still at `version` and no live holder has it; the new version, or `'conflict'`. Needed
   * only by a store that starts from the cache.
   */
  retake?(era: string, holding: LeaseHolding, version: V, turn: Closable): Promise<V | 'conflict'>;
  /**
   * A turn of a held id confirmed without a write, by a store whose own lease of the hold expires
   * with the fence (etcd's), while `turn.markStandsMs` says the mark last published stands long
   * enough: `'kept'` (after `turn.keep()`), `'missed'`, or undefined to write this turn.
   */
  keep?(turn: HoldTurn): Promise<'kept' | 'missed' | undefined>;
  /**
   * Whether the store dropped its own lease of the hold (a ZooKeeper session expired): the id is
   * then taken back as after a start from the cache, found still this start's. @default never
   */
  lapsed?(): boolean;
  /** Publishes the final mark of `holding` (its owner cleared for a key that does not outlive the process); true when it landed. */
  release(era: string, holding: LeaseHolding, version: V): Promise<boolean>;
  /**
   * After a write landed: whether it counts (Redis: enough replicas acknowledged it). A turn
   * whose lease closed meanwhile does not ask. @default counts
   */
  counts?(): Promise<boolean>;
  close(): void | Promise<void>;
  /** See {@link LeaseHold.reconnect}. */
  reconnect?(): void;
  /** See {@link LeaseHold.quiet}. */
  readonly quiet?: VestaErrorCode;
  /** See {@link LeaseHold.closeOnLoss}. */
  readonly closeOnLoss?: boolean;
  /** See {@link LeaseHold.journal}. */
  readonly journal?: LeaseJournal;
}

/** How a {@link storeHold} starts: the version its claim wrote, or none after a start from the cache. */
export interface StoreHoldStart<V> {
  readonly claimant: LeaseClaimant;
  /** The mark the id carried before this start: a cached id is taken back only at or below it. */
  readonly floorMarkMs: number;
  /** The claim: the era it was written under and the record's version; undefined when started from the cache. */
  readonly claimed: { readonly era: string; readonly version: V } | undefined;
}

const takenMeanwhile: HoldLoss = {
  lost: 'other',
  why: 'the cached id was taken by another holder meanwhile, or the store lost its data',
};

/**
 * The hold of one claimed (or cached) id over a store's {@link HoldVerbs}, the same policy for
 * every store: each turn publishes the next mark on the version last written; a conflict is read
 * again before anything is given up ({@link rereadHeld}); after a start from the cache (or a
 * lapse of the store's own lease), the id is taken back only under an open era (the one the cache
 * names), from a record of this key whose mark is not past the cached one (after a lapse: still
 * this start's), once no earlier start holds it live. A turn whose lease closed meanwhile sends no
 * further request, changes nothing and is missed.
 */
export function storeHold<V>(verbs: HoldVerbs<V>, start: StoreHoldStart<V>): LeaseHold {
  const c = start.claimant;
  let held = start.claimed;
  /**
   * A take-back whose write landed though its answer was lost, found by a later read: held on
   * the version found, its next write confirms it as taken back (under this era).
   */
  let takenBackUnder: string | undefined;

  const renew = async (turn: HoldTurn, era: string, at: V): Promise<HoldRenewal> => {
    if (verbs.keep !== undefined) {
      const kept = await verbs.keep(turn);
      if (kept !== undefined) return kept;
    }
    const written = await verbs.renew(era, holdingOf(c, turn.mark()), at, turn);
    if (turn.closed) return 'missed';
    if (written === 'conflict') {
      return rereadHeld(
        turn,
        c,
        async () => {
          const { era: now, record } = await verbs.read();
          return { eraStands: now?.era === era && now.open, record };
        },
        (found) => {
          held = { era, version: found };
        },
      );
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
      return { lost: 'era' } as const;
    }
    // From the cache, this start's own take-back, landed though its answer was lost: held from
    // now on. (After a lapse the record names this start anyway: it is taken back below.)
    if (
      !turn.everConfirmed &&
      record !== undefined &&
      record.owner === c.key &&
      record.instance === c.instance
    ) {
      held = { era: era.era, version: record.version };
      takenBackUnder = era.era;
      return 'missed';
    }
    // Still this start's (after a lapse), or this key's, untouched since the cache (from it).
    const ours =
      record !== undefined &&
      record.owner === c.key &&
      (turn.everConfirmed ? record.instance === c.instance : record.markMs <= start.floorMarkMs);
    if (!ours) {
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

  return {
    renew: async (turn) => {
      if (held !== undefined && verbs.lapsed?.() !== true) {
        return renew(turn, held.era, held.version);
      }
      if (verbs.retake === undefined) return 'missed';
      return retake(turn, verbs.retake);
    },
    release: async (markMs) =>
      held !== undefined &&
      verbs.release(held.era, holdingOf(c, markMs, c.stableKey), held.version),
    close: () => verbs.close(),
    ...(verbs.reconnect === undefined ? {} : { reconnect: () => verbs.reconnect?.() }),
    ...(verbs.quiet === undefined ? {} : { quiet: verbs.quiet }),
    ...(verbs.closeOnLoss === undefined ? {} : { closeOnLoss: verbs.closeOnLoss }),
    ...(verbs.journal === undefined ? {} : { journal: verbs.journal }),
  };
}
