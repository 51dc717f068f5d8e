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

/** What a holder writes into an id's record; `owner` null once released. */
export interface LeaseHolding {
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

/** A coordinator's clock as this host can tell it: `at()` is its reading now (Unix ms). */
export interface CoordinatorClock {
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

/** Where a lease starts. */
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
  /** The used ids the round read. */
  readonly rows: Iterable<ClaimRow>;
  /** The id whose record names this key (taken for a stable key only). */
  readonly ownId: number | undefined;
  /** The ids the round leaves out, when more than those given up (ids it did not read). */
  readonly skip?: ReadonlySet<number>;
  /** The owner wait as the round saw it, when it decided by it already. */
  readonly ownerWaitOver?: boolean;
  /** The requests the round's read took. @default 1 */
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
  /** Whether a round's claim write appends its `claimed` entry itself. @default false */
  readonly journalsClaims?: boolean;
  readRound(state: ClaimRoundState, era: E, clock?: CoordinatorClock): Promise<StoreRound<W>>;
  /** The store's verbs on what this session claimed, or on the cached id (unconfirmed). */
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

/** A held id as a store reads it again: the era that stands, and the id's record. */
export interface HeldRecord<V> {
  readonly era: LeaseEraState | undefined;
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
 * A store's data verbs on one held id; the engine owns the policy over them. `V` is the record's
 * version as the store compares it.
 */
export interface HoldVerbs<V> {
  /** Publishes `holding` while `era` stands and the record is at `version`: the new version, or `'conflict'`. */
  renew(era: string, holding: LeaseHolding, version: V): Promise<V | 'conflict'>;
  read(): Promise<HeldRecord<V>>;
  /** Takes the id back after a start from the cache, if still at `version` and not live. */
  retake?(era: string, holding: LeaseHolding, version: V): Promise<V | 'conflict'>;
  /**
   * Keeps the store's own leases of the hold alive (those gone granted anew): whether all were
   * alive. Called before each write; with it, a turn may be confirmed by the keep-alive alone.
   */
  keepAlive?(): Promise<boolean>;
  /** Whether the store dropped its own lease of the hold (a ZooKeeper session expired). */
  lapsed?(): boolean;
  release(era: string, holding: LeaseHolding, version: V): Promise<boolean>;
  /** After a write landed: whether it counts (Redis: enough replicas acknowledged it). */
  counts?(): Promise<boolean>;
  /** Closes the connection: no request of the hold reaches the store after it. */
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
