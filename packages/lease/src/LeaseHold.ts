import type { VestaErrorCode } from '@vesta/core';
import type { LeaseJournal } from './LeaseJournal.js';

/** Why the id is no longer this holder's: the lease stops issuing for good. */
export type HoldLoss =
  /** The era it was leased under is gone: the store lost its data. */
  | { readonly lost: 'era' }
  /** The record names another holder now (`owner`), or none (`null`: released by hand). */
  | { readonly lost: 'moved'; readonly owner: string | null }
  /** A store's own reason, where it cannot tell which (a conditional write that matched nothing). */
  | { readonly lost: 'other'; readonly why: string; readonly owner?: string | null };

/** What a store says of one renewal turn (see {@link LeaseHold.renew}). */
export type HoldRenewal =
  /** The turn's write published its mark ({@link HoldTurn.mark}): the lease is confirmed. */
  | 'confirmed'
  /** Confirmed, and held under the era `confirmedUnder` from now on (a cached start taken back). */
  | { readonly confirmedUnder: string }
  /**
   * Confirmed without a write ({@link HoldTurn.keep}): the store's own lease of the hold was kept
   * alive, and the mark last published stands.
   */
  | 'kept'
  /** Nothing confirmed this turn (not connected yet, waiting, too few replicas): a missed turn. */
  | 'missed'
  | HoldLoss;

/** What the lease tells its hold at each write. */
export interface HoldState {
  /**
   * Whether the store confirmed this lease at least once: false only after a start from the
   * cache, until the id is taken back.
   */
  readonly everConfirmed: boolean;
  /** The era the lease holds its id under (claimed, confirmed, or recorded in the cache). */
  readonly era: string | undefined;
}

/** One renewal turn, as its hold sees it. */
export interface HoldTurn extends HoldState {
  /**
   * The mark this turn's write publishes: `fenceAfterMs` ahead, never below anything told,
   * stored or in `floorsMs`. The confirmation runs from when it is called: call it before the
   * write (earlier is safe: the fence only runs out sooner).
   */
  mark(...floorsMs: readonly number[]): number;
  /**
   * How long the mark last published still stands ahead of the wall clock (ms); 0 when the
   * service told a mark above it. A store whose own lease of the hold expires with the fence (an
   * etcd lease) may then confirm a turn by keeping that lease alive alone ({@link keep}).
   */
  readonly markStandsMs: number;
  /**
   * Starts a turn that publishes no mark, answered `'kept'`: the confirmation runs from when it
   * is called (call it before the keep-alive), the mark last published stands.
   */
  keep(): void;
  /**
   * Whether the lease closed since the turn began (abandoned, or closed by its provider): read
   * between the turn's requests. Once true, the hold sends no further request and changes none of
   * its own state (its answer is ignored): it returns `'missed'`.
   */
  readonly closed: boolean;
}

/**
 * A coordinator's hold on one leased id: the writes a {@link CoordinatorLease} drives. The lease
 * owns the control flow (the renewal loop, the fence, the outcome of each turn, loss for good, the
 * cache, the journal, the final mark, the log lines); a hold writes to its store and says what
 * came of it, as plain outcomes.
 */
export interface LeaseHold {
  /**
   * One renewal turn: publish the next mark (or, after a start from the cache or a lost session,
   * take the id back) and say what came of it. A rejection is a missed turn (see
   * {@link reconnect} and {@link quiet}).
   */
  renew(turn: HoldTurn): Promise<HoldRenewal>;
  /**
   * Publishes `markMs` as the final mark and ends the hold (a key that does not outlive the
   * process gives the id up); true when the write landed. Called once, only on a lease confirmed
   * at least once and not lost.
   */
  release(markMs: number, state: HoldState): Promise<boolean>;
  /**
   * Closes the store connection (on release, when abandoned, and on loss with {@link closeOnLoss}).
   * After close, no request of the hold may reach the store: a turn still in flight sees
   * {@link HoldTurn.closed} and stops between its requests, and the store's client rejects any
   * request made after it closed.
   */
  close(): void | Promise<void>;
  /** After a failed turn: a connection that cannot recover by itself starts again (Redis, etcd). */
  reconnect?(): void;
  /**
   * A failed turn with this code is not logged: the store's client fails every request so while it
   * is disconnected, and the fence's log line tells what matters.
   */
  readonly quiet?: VestaErrorCode;
  /** Closes the connection at once when the id is lost, not only at the release. @default false */
  readonly closeOnLoss?: boolean;
  /**
   * The journal the lease appends to, where it is not the start's (a hold that reconnects on a
   * client of its own, as ZooKeeper's, answers one on its current connection).
   */
  readonly journal?: LeaseJournal;
}
