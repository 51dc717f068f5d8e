import type { MachineIdRequest, VestaErrorCode } from '@vesta/core';
import type { LeaseJournal, LeaseJournalEntry } from './LeaseJournal.js';
import type { ClaimCandidate, ClaimRow, ClaimSnapshot } from './planLeaseClaim.js';

// The seam: the store reads and writes and answers with data; the engine decides what it means.

/** Who claims: the key (`stableKey`: it outlives this process) and this start's token. */
export interface LeaseClaimant {
  readonly key: string;
  readonly stableKey: boolean;
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

/** A coordinator's clock now (Unix ms), as this host can tell it. */
export interface CoordinatorClock {
  at(): number;
}

export type ClaimRoundState = Pick<ClaimSnapshot, 'skip' | 'ownerWaitOver'>;

/** A store's allocation era (plus whatever its writes compare). */
export interface LeaseEraState {
  readonly era: string;
  readonly open: boolean;
  /** Every record of the era has its key's index entry (a windowed store: no scan finds more). */
  readonly indexed?: boolean;
}

/** What a store read with its era in one request: `after`, the era as it is then. */
export interface EraAnswer<E> {
  readonly after: E | undefined;
}

/** A store's era record; each step is atomic, and may answer the next era read. */
export interface LeaseEraStore<
  E extends LeaseEraState,
  R extends ClaimRow = ClaimRow,
  Win extends IdWindow = IdWindow,
> {
  readEra(): Promise<E | undefined>;
  /** Creates a closed era `era` when there is none; false when another start created one first. */
  createEra(era: string): Promise<boolean | (EraAnswer<E> & { readonly created: boolean })>;
  /** Opens the closed era `found`, unless it changed since it was read; `along`: read with it. */
  openEra(
    found: E,
    along?: WindowQuery<Win>,
    // eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- most read nothing along
  ): Promise<void | {
    readonly era: E | undefined;
    readonly also?: { readonly rows: readonly R[] };
  }>;
}

/** What one claim round read from a store, and how to claim one of its candidates. */
export interface StoreRound<W> {
  /** The used ids read, with their marks. */
  readonly rows: Iterable<ClaimRow>;
  /** The id whose record names this key. */
  readonly ownId: number | undefined;
  /** The ids left out, when more than those given up (ids not read). */
  readonly skip?: ReadonlySet<number>;
  /** The owner wait, when the round decided by it already. */
  readonly ownerWaitOver?: boolean;
  /** Round trips the read took. @default 1 */
  readonly reads?: number;
  /** One compare-and-set step: what the hold needs, or undefined when a concurrent start won. */
  write(
    candidate: ClaimCandidate,
    markMs: number,
    claimed: LeaseJournalEntry,
  ): Promise<W | undefined>;
}

/** A part of the range a store reads in one request (etcd: a span of its key order). */
export interface IdWindow {
  readonly ids: ReadonlySet<number>;
}

/** A window, and ids read with it. */
export interface WindowQuery<W extends IdWindow> {
  readonly window: W;
  readonly ids: readonly number[];
}

/** A store's data verbs for a round read a window at a time (etcd). */
export interface WindowVerbs<R extends ClaimRow, W extends IdWindow> {
  readonly windows: readonly W[];
  /** The rows of a window and of single ids; of every id when given neither. */
  read(q: Partial<WindowQuery<W>>): Promise<readonly R[]>;
  /** Whether the record names this start's key. */
  names(row: R): boolean;
  /** Orders two records naming the key, the newest first. */
  newestFirst(a: R, b: R): number;
}

/** A store whose rounds read a window of the range at a time (etcd): the engine drives them. */
export interface WindowedRounds<E, W, R extends ClaimRow, Win extends IdWindow> extends WindowVerbs<
  R,
  Win
> {
  /** A compare-and-set claim of `candidate` as `row` showed it; undefined: another start won. */
  claim(
    era: E,
    candidate: ClaimCandidate,
    row: R | undefined,
    markMs: number,
    claimed: LeaseJournalEntry,
  ): Promise<W | undefined>;
}

/** What a store read on connecting, when asked for a window (etcd): its era and the key's index. */
export interface ConnectAnswer<E, R> {
  readonly era: E | undefined;
  readonly indexed: number | undefined;
  readonly rows: readonly R[];
}

/** One start's connection to a store: its rounds read at once (`readRound`), or a window at a time. */
export type LeaseSession<
  E extends LeaseEraState,
  W,
  R extends ClaimRow = ClaimRow,
  Win extends IdWindow = IdWindow,
> = (
  | { readRound(state: ClaimRoundState, era: E, clock?: CoordinatorClock): Promise<StoreRound<W>> }
  | { readonly windows: WindowedRounds<E, W, R, Win> }
) & {
  /** Rejects when the store is unreachable (then the cache may be used); `along`: read with it. */
  // eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- most read nothing along
  connect(along?: WindowQuery<Win>): Promise<void | ConnectAnswer<E, R>>;
  prepare?(): Promise<void>;
  /** Without it, the clock check is skipped. */
  readClock?(): Promise<number>;
  readonly era: LeaseEraStore<E, R, Win>;
  readonly journal: LeaseJournal;
  /** Whether a claim write appends its `claimed` entry itself. @default false */
  readonly journalsClaims?: boolean;
  /** The verbs holding `machineId` (claimed by the rounds, or cached): the claim is over. */
  hold(machineId: number): HoldVerbs<unknown>;
  /** The start failed (the claim ended): undo what the rounds hold and close. */
  close(): void | Promise<void>;
};

/** A coordinator's store: its names in messages and files, and its sessions. */
export interface LeaseStore<
  E extends LeaseEraState,
  W,
  R extends ClaimRow = ClaimRow,
  Win extends IdWindow = IdWindow,
> {
  /** `ZooKeeper`, `Redis`, `PostgreSQL`, `etcd`. */
  readonly coordinator: string;
  /** Names its files in the state dir (`postgres-key`, ...). */
  readonly files: string;
  /** Hosts and ports (no credentials). */
  readonly address: string;
  /** The allocation namespace (root, prefix, table). */
  readonly root: string;
  readonly eraLogFields: Record<string, unknown>;
  /** @default 'COORDINATOR_UNAVAILABLE' */
  readonly unavailable?: VestaErrorCode;
  /** Paces the wait for a key's own id held by its previous holder (ms). */
  readonly pollMs: number;
  readonly startsFromCache: boolean;
  open(claimant: LeaseClaimant): LeaseSession<E, W, R, Win>;
}

/** A held id as a store reads it again; `live`: a holder's store-side lease stands. */
export interface HeldRecord<V, E extends LeaseEraState = LeaseEraState> {
  readonly era: E | undefined;
  readonly record:
    | (Omit<LeaseHolding, 'genMethod' | 'type'> & { readonly live: boolean; readonly version: V })
    | undefined;
}

/** A store's data verbs on one held id; `V`, `E`: its version and era as the store compares them. */
export interface HoldVerbs<V, E extends LeaseEraState = LeaseEraState> {
  /** Writes `holding` if `era` stands and the record is at `version` (`retake`: and not live). */
  renew(era: E, holding: LeaseHolding, version: V, retake: boolean): Promise<V | 'conflict'>;
  read(): Promise<HeldRecord<V, E>>;
  /**
   * Keeps the store's own leases of the hold alive (those gone granted anew): whether all were
   * alive. Called before each write; with it, a turn may be confirmed by the keep-alive alone.
   */
  keepAlive?(): Promise<boolean>;
  /** Whether the store dropped its own lease of the hold (a ZooKeeper session expired). */
  lapsed?(): boolean;
  release(era: E, holding: LeaseHolding, version: V): Promise<boolean>;
  /** After a write landed: whether it counts (Redis: enough replicas have it). */
  counts?(): Promise<boolean>;
  close(): void | Promise<void>;
  /** After a failed turn: a connection that cannot recover by itself starts again. */
  reconnect?(): void;
  /** A failed turn with this code is not logged (the fence's log line tells). */
  readonly quiet?: VestaErrorCode;
  /** Closes the connection when the id is lost, not only at the release. */
  readonly closeOnLoss?: boolean;
  /** The journal to append to, where it is not the session's. */
  readonly journal?: LeaseJournal;
}
