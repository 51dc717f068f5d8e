import type { MachineIdRequest, VestaErrorCode } from '@vesta/core';
import type { CachedLease, LeaseCache } from './LeaseCache.js';
import type { LeaseFence } from './LeaseFence.js';
import type { LeaseJournal, LeaseJournalEntry } from './LeaseJournal.js';
import type { ClaimCandidate, ClaimRow, ClaimSnapshot } from './planLeaseClaim.js';

/*
 * The seam between the lease engine (`LeaseProvider`) and a coordinator's store: the store
 * reads and writes and answers with data; the engine decides what the answers mean.
 */

/** Who claims: one acquisition's key and instance. */
export interface LeaseClaimant {
  readonly key: string;
  /** Whether the key outlives this process (given, or kept in the state dir). */
  readonly stableKey: boolean;
  /** This start's token: tells a later start of the same key apart. */
  readonly instance: string;
  readonly request: MachineIdRequest;
}

/** What a holder writes into an id's record. */
export interface LeaseHolding {
  /** The holder's key; null once released. */
  readonly owner: string | null;
  readonly instance: string | null;
  readonly markMs: number;
  readonly genMethod: number;
  readonly type: number;
}

/** The record `c` writes publishing `markMs`; with `keepOwner` false, a release (no owner). */
export function holdingOf(c: LeaseClaimant, markMs: number, keepOwner = true): LeaseHolding {
  return {
    owner: keepOwner ? c.key : null,
    instance: keepOwner ? c.instance : null,
    markMs,
    genMethod: c.request.genMethod,
    type: c.request.type,
  };
}

/** A coordinator's clock as this host can tell it. */
export interface CoordinatorClock {
  /** The coordinator's clock now (Unix ms): its last reading, extrapolated on the monotonic clock. */
  at(): number;
}

/** What a claim round is told: the ids given up so far, and whether the owner wait is over. */
export type ClaimRoundState = Pick<ClaimSnapshot, 'skip' | 'ownerWaitOver'>;

/** A coordinator's allocation era (plus whatever its writes compare). */
export interface LeaseEraState {
  readonly era: string;
  readonly open: boolean;
}

/** The era record of a store; each step is atomic. */
export interface LeaseEraStore<E extends LeaseEraState> {
  readEra(): Promise<E | undefined>;
  /** Creates a closed era `era` when there is none; false when another start created one first. */
  createEra(era: string): Promise<boolean>;
  /** Opens the closed era `found`, unless it changed since it was read. */
  openEra(found: E): Promise<void>;
}

/** Where a lease starts, for the store's hold. */
export interface LeaseOpening {
  readonly machineId: number;
  /** The mark the id carried before this start (0: none). */
  readonly floorMarkMs: number;
  /** Nothing is issued before it: one time unit past the floor. */
  readonly notBeforeMs: number;
  readonly fence: LeaseFence;
  readonly cache: LeaseCache | undefined;
}

/** What one claim round read from a store, and how to claim one of its candidates. */
export interface StoreRound<W> {
  /** The used ids the round read (those of the requested range count). */
  readonly rows: Iterable<ClaimRow>;
  /** The id whose record names this key (taken for a stable key only). */
  readonly ownId: number | undefined;
  /** The ids the round leaves out, when more than those given up (ids it did not read). */
  readonly skip?: ReadonlySet<number>;
  /** The owner wait as the round saw it, when it decided by it already. */
  readonly ownerWaitOver?: boolean;
  /** The requests the round's read took, each a round trip. @default 1 */
  readonly reads?: number;
  /** The time mark `machineId`'s record carries (undefined: none read). */
  markMs(machineId: number): number | undefined;
  /**
   * Claims `candidate` publishing `markMs` in one compare-and-set step: what the hold needs, or
   * undefined when a concurrent start won the id. A session that `journalsClaims` appends
   * `claimed` in the same step.
   */
  write(
    candidate: ClaimCandidate,
    markMs: number,
    claimed: LeaseJournalEntry,
  ): Promise<W | undefined>;
}

/** How a lease starts: a claim written under an era, or the state dir's cached lease. */
export type LeaseStartFrom<E, W> =
  { readonly claimed: { readonly era: E; readonly written: W } } | { readonly cached: CachedLease };

/** One start's connection to a store: the reads and atomic writes the engine drives. */
export interface LeaseSession<E extends LeaseEraState, W> {
  /** Rejects when the store cannot be reached (then the cache may be used). */
  connect(): Promise<void>;
  /** What the store sets up once, before the first round (a tree, a table). */
  prepare?(): Promise<void>;
  /** The store's clock (Unix ms); without it, the clock check is skipped. */
  readClock?(): Promise<number>;
  readonly era: LeaseEraStore<E>;
  readonly journal: LeaseJournal;
  /** Whether a round's claim write appends its `claimed` entry itself (etcd). @default false */
  readonly journalsClaims?: boolean;
  /** Reads one claim round under the open era `era`; `clock` when the store has `readClock`. */
  readRound(state: ClaimRoundState, era: E, clock?: CoordinatorClock): Promise<StoreRound<W>>;
  /**
   * The store's verbs on what this session claimed, or on the cached id (unconfirmed); the
   * engine holds the id over them (`storeHold`).
   */
  hold(opening: LeaseOpening, from: LeaseStartFrom<E, W>): HoldVerbs<unknown>;
  /** The record's version a claim wrote, as the hold compares it. @default the write's answer */
  versionOf?(written: W): unknown;
  /** The claim ended (a lease, or a failure): stop what only a running claim needs. */
  claimEnded?(): void;
  /** The start failed: undo what the rounds hold (e.g. store-side leases) and close. */
  close(): void | Promise<void>;
}

/** A coordinator's store: its names in messages and files, and its sessions. */
export interface LeaseStore<E extends LeaseEraState, W> {
  /** `ZooKeeper`, `Redis`, `PostgreSQL`, `etcd`. */
  readonly coordinator: string;
  /** Names its files in the state dir (`postgres-key`, ...). */
  readonly files: string;
  /** Hosts and ports (no credentials). */
  readonly address: string;
  /** The allocation namespace (root, prefix, table). */
  readonly root: string;
  /** Where the era wait's log line says the store is, e.g. `{ prefix }`. */
  readonly eraLogFields: Record<string, unknown>;
  /** @default 'COORDINATOR_UNAVAILABLE' */
  readonly unavailable?: VestaErrorCode;
  /** Paces the wait for a key's own id held by its previous holder (ms). */
  readonly pollMs: number;
  /** Whether a start may run on the cached lease while the store is unreachable. */
  readonly startsFromCache: boolean;
  open(claimant: LeaseClaimant): LeaseSession<E, W>;
}

/** Why the id is no longer this holder's. */
export type HoldLoss =
  /** The era it was leased under is gone: the store lost its data. */
  | { readonly lost: 'era' }
  /** The record names another holder, or none (released by hand). */
  | { readonly lost: 'moved'; readonly owner: string | null }
  | { readonly lost: 'other'; readonly why: string; readonly owner?: string | null };

/** What a store says of one renewal turn. */
export type HoldRenewal =
  /** The turn's write published its mark. */
  | 'confirmed'
  /** Confirmed, and held under this era from now on (a cached start taken back). */
  | { readonly confirmedUnder: string }
  /** Confirmed without a write (`turn.keep()`): the store's own lease was kept alive. */
  | 'kept'
  /** Nothing confirmed this turn. */
  | 'missed'
  | HoldLoss;

/** What the lease tells its hold at each write. */
export interface HoldState {
  /** False only after a start from the cache, until the id is taken back. */
  readonly everConfirmed: boolean;
  readonly era: string | undefined;
}

/** One renewal turn, as its hold sees it. */
export interface HoldTurn extends HoldState {
  /**
   * The mark this turn publishes (`fenceAfterMs` ahead, never below anything told or in
   * `floorsMs`); the confirmation runs from this call, so call it before the write.
   */
  mark(...floorsMs: readonly number[]): number;
  /** How long the mark last published still stands ahead of the wall clock (ms). */
  readonly markStandsMs: number;
  /** Starts a turn that publishes no mark, answered `'kept'`. */
  keep(): void;
  /** Whether the lease closed since the turn began: then the hold sends nothing more. */
  readonly closed: boolean;
}

/** A store's writes on one leased id; the lease decides what each outcome means. */
export interface LeaseHold {
  /** One renewal turn; a rejection is a missed turn. */
  renew(turn: HoldTurn): Promise<HoldRenewal>;
  /** Publishes the final mark and ends the hold; true when the write landed. */
  release(markMs: number, state: HoldState): Promise<boolean>;
  /** Closes the store connection: no request of the hold reaches the store after it. */
  close(): void | Promise<void>;
  /** After a failed turn: a connection that cannot recover by itself starts again. */
  reconnect?(): void;
  /** A failed turn with this code is not logged (the fence's log line tells what matters). */
  readonly quiet?: VestaErrorCode;
  /** Closes the connection when the id is lost, not only at the release. @default false */
  readonly closeOnLoss?: boolean;
  /** The journal to append to, where it is not the session's. */
  readonly journal?: LeaseJournal;
}

/** What a verb that sends more than one request looks at between them. */
export type Closable = Pick<HoldTurn, 'closed'>;

/** A held id as a store reads it again: the era that stands, and the id's record. */
export interface HeldRecord<V> {
  readonly era: { readonly era: string; readonly open: boolean } | undefined;
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
 * A store's data verbs on one held id, with no policy of their own (that is {@link storeHold}'s).
 * `V` is the record's version as the store compares it.
 */
export interface HoldVerbs<V> {
  /** Publishes `holding` while `era` stands and the record is at `version`: the new version, or `'conflict'`. */
  renew(era: string, holding: LeaseHolding, version: V, turn: Closable): Promise<V | 'conflict'>;
  read(): Promise<HeldRecord<V>>;
  /** Takes the id back after a start from the cache, if still at `version` and not live. */
  retake?(era: string, holding: LeaseHolding, version: V, turn: Closable): Promise<V | 'conflict'>;
  /**
   * A turn confirmed without a write, by a store whose own lease expires with the fence (etcd's):
   * `'kept'` (after `turn.keep()`), `'missed'`, or undefined to write this turn.
   */
  keep?(turn: HoldTurn): Promise<'kept' | 'missed' | undefined>;
  /** Whether the store dropped its own lease of the hold (a ZooKeeper session expired). */
  lapsed?(): boolean;
  release(era: string, holding: LeaseHolding, version: V): Promise<boolean>;
  /** After a write landed: whether it counts (Redis: enough replicas acknowledged it). */
  counts?(): Promise<boolean>;
  close(): void | Promise<void>;
  reconnect?(): void;
  readonly quiet?: VestaErrorCode;
  readonly closeOnLoss?: boolean;
  readonly journal?: LeaseJournal;
}
