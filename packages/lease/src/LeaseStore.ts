import type { MachineIdRequest, VestaErrorCode } from '@vesta/core';
import type { LeaseEraState, LeaseEraStore } from './enterLeaseEra.js';
import type { CachedLease, LeaseCache } from './LeaseCache.js';
import type { LeaseFence } from './LeaseFence.js';
import type { LeaseHold } from './LeaseHold.js';
import type { LeaseJournal, LeaseJournalEntry } from './LeaseJournal.js';
import type { ClaimCandidate, ClaimSnapshot } from './planLeaseClaim.js';

/** Who claims: one acquisition's key and instance. */
export interface LeaseClaimant {
  readonly key: string;
  /** Whether the key outlives this process (given, or kept in the state dir). */
  readonly stableKey: boolean;
  /** This start's token: its writes name it, so a later start of the same key is told apart. */
  readonly instance: string;
  readonly request: MachineIdRequest;
}

/** What a holder writes into an id's record: who holds it, since which start, up to which mark. */
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

/** Where a lease starts: its id, mark floor and fence, for the store's hold. */
export interface LeaseOpening {
  readonly machineId: number;
  /** The mark the id carried before this start (0: none). */
  readonly floorMarkMs: number;
  /** Nothing is issued before it: one time unit past the floor. */
  readonly notBeforeMs: number;
  readonly fence: LeaseFence;
  /** The state dir's cache the lease records its confirmations in; undefined without one. */
  readonly cache: LeaseCache | undefined;
}

/** What one claim round read from a store, and how to write a claim of one of its candidates. */
export interface StoreRound<W> {
  readonly snapshot: ClaimSnapshot;
  /**
   * The requests the round's read took (a store may read a part of the range first, and on
   * when that part holds no free id): each counts a round trip. @default 1
   */
  readonly reads?: number;
  /** The time mark `candidate` carried before this start (0: none). */
  floorMarkMs(candidate: ClaimCandidate): number;
  /**
   * Writes the claim of `candidate` publishing `markMs`, in one compare-and-set step; what the
   * lease needs of the write, or undefined when a concurrent start won the id. `claimed` is the
   * claim's journal entry: a session that {@link LeaseSession.journalsClaims} writes it in the
   * same step, others leave it to the provider.
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

/**
 * One start's connection to a coordinator's store: what {@link LeaseProvider} drives. The
 * provider owns the control flow (connect, the cached start, the clock check, rounds of era,
 * read, plan and fenced claim, the errors, the lease); a session supplies the store's reads and
 * atomic writes, and the hold of what it claimed.
 */
export interface LeaseSession<E extends LeaseEraState, W> {
  /** Connects; rejects when the coordinator cannot be reached (then the cache may be used). */
  connect(): Promise<void>;
  /** Once connected, before the first round: what the store sets up once (a tree, a table). */
  prepare?(): Promise<void>;
  /**
   * The coordinator's clock (Unix ms, e.g. the time of a write), read once prepared: the provider
   * checks this host's against it (CLOCK_OUT_OF_SYNC ends the start) and hands it to each round.
   * A store without one skips the check.
   */
  readClock?(): Promise<number>;
  /** The allocation era's record (read, create closed, open). */
  readonly era: LeaseEraStore<E>;
  /**
   * The store's lease journal: the provider appends a claim's `claimed` entry once its write won
   * (a failure fails the start; unless {@link journalsClaims}), and the lease of this session's
   * hold its `released` entry (unless the hold has a journal of its own).
   */
  readonly journal: LeaseJournal;
  /**
   * Whether a round's claim write appends the claim's `claimed` entry itself, in the claim's own
   * atomic step (etcd: one transaction), instead of the provider appending it after the write
   * won: one request less a start, and no claim without its entry. @default false
   */
  readonly journalsClaims?: boolean;
  /**
   * Reads one claim round of the session's claimant under the open era `era`; `clock` is the
   * coordinator's, when the store has {@link readClock}.
   */
  readRound(state: ClaimRoundState, era: E, clock?: CoordinatorClock): Promise<StoreRound<W>>;
  /**
   * The hold of what this session claimed, or of the cached id (unconfirmed): the writes of the
   * lease the provider builds on it, on this session's connection from then on.
   */
  hold(opening: LeaseOpening, from: LeaseStartFrom<E, W>): LeaseHold;
  /** The claim ended (a lease, or a failure): stop what only a running claim needs. */
  claimEnded?(): void;
  /** The start failed: undo what the rounds hold (e.g. store-side leases) and close. */
  close(): void | Promise<void>;
}

/** A coordinator's store: its name and place in messages and files, and its sessions. */
export interface LeaseStore<E extends LeaseEraState, W> {
  /** Its name in messages: `ZooKeeper`, `Redis`, `PostgreSQL`, `etcd`. */
  readonly coordinator: string;
  /** Names its files in the state dir (`postgres-key`, ...). */
  readonly files: string;
  /** Where it is, in messages: hosts and ports (no credentials). */
  readonly address: string;
  /** The allocation namespace (root, prefix, table), in messages and the cache. */
  readonly root: string;
  /** Where the era wait's log line says the store is, e.g. `{ prefix }`. */
  readonly eraLogFields: Record<string, unknown>;
  /** The code of a store that cannot be reached. @default 'COORDINATOR_UNAVAILABLE' */
  readonly unavailable?: VestaErrorCode;
  /** Paces the wait for a key's own id held by its previous holder (ms). */
  readonly pollMs: number;
  /**
   * Whether a start may run on the state dir's cached lease while the store is unreachable
   * (`fallbackToCache` decides then). False for a store that cannot confirm a cached id later.
   */
  readonly startsFromCache: boolean;
  /** A session for one start of `claimant` (not connected yet). */
  open(claimant: LeaseClaimant): LeaseSession<E, W>;
}
