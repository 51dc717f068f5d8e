import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  IdType,
  VestaError,
  type Logger,
  type MachineIdLease,
  type MachineIdProvider,
  type MachineIdRequest,
  type TimerHandle,
  type TimeSource,
  type VestaErrorCode,
} from '@vesta/core';
import { sleepOn, vestaUnitMs } from '@vesta/core/kit';
import { cachedLeaseFallback, LeaseCache } from './LeaseCache.js';
import { LeaseFence } from './LeaseFence.js';
import type { LeaseJournal, LeaseJournalEntry } from './LeaseJournal.js';
import type { ResolvedLeaseOptions } from './LeaseOptions.js';
import {
  holdingOf,
  type ClaimRoundState,
  type CoordinatorClock,
  type EraAnswer,
  type HeldRecord,
  type HoldVerbs,
  type IdWindow,
  type LeaseClaimant,
  type LeaseEraState,
  type LeaseEraStore,
  type LeaseSession,
  type LeaseStore,
  type StoreRound,
  type WindowQuery,
} from './LeaseStore.js';
import {
  planLeaseClaim,
  snapshotOfRows,
  type ClaimCandidate,
  type ClaimRow,
} from './planLeaseClaim.js';

const MAX_ROUNDS = 50;
// After three lost races the snapshot is stale: a fresh read costs one round trip.
const TRIES_PER_ROUND = 3;

/** Ids taken `fresh`, `reused` (the key's), `reclaimed`; starts `refused` and `fromCache`. */
export type LeaseClaimStats = Readonly<
  Record<'fresh' | 'reused' | 'reclaimed' | 'refused' | 'fromCache', number>
>;

/** The options a provider reads; `fallbackToCache` may be missing (a store without a cache). */
export type LeaseProviderOptions = Omit<ResolvedLeaseOptions, NotRead | 'fallbackToCache'> &
  Partial<Pick<ResolvedLeaseOptions, 'fallbackToCache'>> & {
    /** Orders the free ids a round tries. @default Math.random */
    readonly random?: () => number;
  };

type NotRead = 'connectTimeoutMs' | 'operationTimeoutMs' | 'journalRetention';

type EntryFields = Pick<LeaseJournalEntry, 'atMs' | 'floorMarkMs' | 'markMs'>;

const entryOf = (
  event: LeaseJournalEntry['event'],
  machineId: number,
  c: LeaseClaimant,
  fields: EntryFields,
): LeaseJournalEntry => ({ event, machineId, holder: c.key, instance: c.instance, ...fields });

/** Ms in one time unit of an id type: a new holder starts one unit past a mark. */
function leaseUnitMs(type: number): number {
  return vestaUnitMs(type === IdType.MIN_GRANULARITY ? IdType.MIN_GRANULARITY : IdType.MAX_PEAK);
}

/** Leases machine ids over a {@link LeaseStore}: the store's data verbs, this engine's policy. */
export class LeaseProvider<
  E extends LeaseEraState = LeaseEraState,
  W = unknown,
  R extends ClaimRow = ClaimRow,
  Win extends IdWindow = IdWindow,
> implements MachineIdProvider {
  readonly #store: LeaseStore<E, W, R, Win>;
  readonly #o: LeaseProviderOptions;
  readonly #cache: LeaseCache | undefined;
  readonly #where: string;
  readonly #unavailable: VestaErrorCode;
  readonly #stats = { fresh: 0, reused: 0, reclaimed: 0, refused: 0, fromCache: 0 };
  #roundTrips = 0;

  constructor(store: LeaseStore<E, W, R, Win>, options: LeaseProviderOptions) {
    this.#store = store;
    this.#o = options;
    this.#cache =
      options.stateDir === undefined
        ? undefined
        : new LeaseCache(options.stateDir, store.files, store.root);
    this.#where = `${store.coordinator} at ${store.address}`;
    this.#unavailable = store.unavailable ?? 'COORDINATOR_UNAVAILABLE';
  }

  get stats(): LeaseClaimStats {
    return Object.freeze({ ...this.#stats });
  }

  /** The store round trips this provider's claims cost so far. */
  get roundTrips(): number {
    return this.#roundTrips;
  }

  async acquire(request: MachineIdRequest): Promise<CoordinatorLease> {
    const store = this.#store;
    const { key } = this.#o;
    const c: LeaseClaimant = {
      key: key ?? this.#cache?.key() ?? `${hostname()}/${process.pid}/${randomUUID()}`,
      stableKey: key !== undefined || this.#cache !== undefined,
      instance: randomUUID(),
      request,
    };
    const session = store.open(c);
    const rounds = 'windows' in session ? windowedRounds(session, c) : session;
    try {
      const first = await rounds.connect().catch((cause: unknown) => {
        if (store.startsFromCache) return { cause };
        throw cause;
      });
      if (first && 'cause' in first) return await this.#startFromCache(session, c, first.cause);
      await session.prepare?.();
      const clock = session.readClock && (await this.#checkClock(session.readClock.bind(session)));
      const known = first ? { after: first.era } : undefined;
      return await this.#claim(session, c, clock, rounds, known);
    } catch (error) {
      await session.close();
      throw this.#failure(error);
    }
  }

  async #claim(
    session: LeaseSession<E, W, R, Win>,
    c: LeaseClaimant,
    clock: CoordinatorClock | undefined,
    rounds: Rounds<E, W, R, Win>,
    first: EraAnswer<E> | undefined,
  ): Promise<CoordinatorLease> {
    const o = this.#o;
    const store = this.#store;
    const { min, max } = c.request.range;
    const ownerWaitUntil = o.time.monotonic() + o.ownerWaitMs;
    const skip = new Set<number>();
    const eraHooks = eraWaitLog(o.logger, store.coordinator, store.eraLogFields);
    let known = first;
    for (let n = 0; n < MAX_ROUNDS; n++) {
      // Every round enters the era anew: a claim that lost to a data loss waits for the new era.
      const era = await enterLeaseEra(rounds.era, o.eraWaitMs, o.time, eraHooks, known);
      known = undefined;
      const state: ClaimRoundState = {
        skip,
        get ownerWaitOver() {
          return o.time.monotonic() >= ownerWaitUntil;
        },
      };
      const round = await rounds.readRound(state, era, clock);
      this.#roundTrips += round.reads ?? 1;
      const snapshot = snapshotOfRows(round.rows, {
        range: c.request.range,
        skip: round.skip ?? skip,
        ownerWaitOver: round.ownerWaitOver ?? state.ownerWaitOver,
        reclaimAfterMs: o.reclaimAfterMs,
        ownId: c.stableKey ? round.ownId : undefined,
      });
      const plan = planLeaseClaim(snapshot, o.random ?? Math.random);
      if (plan.action === 'waitForOwner') {
        await sleepOn(o.time, store.pollMs);
        continue;
      }
      if (plan.gaveUp !== undefined) {
        o.logger.warn(
          { machineId: plan.gaveUp, key: c.key },
          'the id of this key is still held by a live holder; taking another id',
        );
        skip.add(plan.gaveUp);
      }
      for (const candidate of plan.candidates.slice(0, TRIES_PER_ROUND)) {
        this.#roundTrips++;
        const lease = await this.#take(session, c, era, round, candidate);
        if (lease === undefined) continue;
        const { machineId, kind, record } = candidate;
        this.#stats[kind]++;
        if (kind === 'reclaimed') {
          const dead = { machineId, previousOwner: record?.owner ?? null, idleMs: record?.idleMs };
          o.logger.warn(dead, 'reclaimed the machine id of a dead owner');
        }
        return lease;
      }
      if (plan.candidates.length === 0) {
        const live = snapshot.live.size;
        const { reclaimAfterMs } = o;
        throw new VestaError(
          'MACHINE_ID_EXHAUSTED',
          `no machine id left in ${min}-${max} in ${store.root}: ${live} live, the others used within the last ${reclaimAfterMs} ms`,
          { details: { min, max, live, reclaimAfterMs } },
        );
      }
    }
    throw new VestaError(
      'MACHINE_ID_EXHAUSTED',
      `lost the race for a machine id ${MAX_ROUNDS} times in ${min}-${max}`,
      { details: { min, max } },
    );
  }

  /** Claims `candidate` (no id is issued without its `claimed` entry); undefined: it lost. */
  async #take(
    session: LeaseSession<E, W, R, Win>,
    c: LeaseClaimant,
    era: E,
    round: StoreRound<W>,
    candidate: ClaimCandidate,
  ): Promise<CoordinatorLease | undefined> {
    const o = this.#o;
    const { machineId } = candidate;
    const floorMarkMs = candidate.record?.markMs ?? 0;
    const fence = new LeaseFence(o.time, o.fenceAfterMs);
    const sentAt = fence.sendTime();
    const notBeforeMs = floorMarkMs === 0 ? 0 : floorMarkMs + leaseUnitMs(c.request.type);
    const markMs = fence.markToPublish(notBeforeMs + o.fenceAfterMs);
    const entry = (): LeaseJournalEntry =>
      entryOf('claimed', machineId, c, { atMs: o.clock(), floorMarkMs });
    const written = await round.write(candidate, markMs, entry());
    if (written === undefined) return undefined;
    // A failure to journal fails the start (the claim is left to expire).
    if (session.journalsClaims !== true) await session.journal.append(entry());
    fence.confirm(markMs, sentAt);
    const claimed = { era, version: written };
    const opening = { machineId, floorMarkMs, notBeforeMs, fence, era: era.era, claimed };
    const lease = this.#lease(session, c, opening);
    const gapMs = notBeforeMs - o.clock();
    if (gapMs > o.maxClockWaitMs) {
      await lease.release();
      throw this.#behind(gapMs, floorMarkMs, machineId, 'the time mark stored for');
    }
    return lease;
  }

  async #startFromCache(
    session: LeaseSession<E, W, R, Win>,
    c: LeaseClaimant,
    cause: unknown,
  ): Promise<CoordinatorLease> {
    const o = this.#o;
    const decision = cachedLeaseFallback({
      ...o,
      fallbackToCache: o.fallbackToCache ?? false,
      cache: this.#cache,
      key: c.key,
      root: this.#store.root,
      range: c.request.range,
      nowMs: o.clock(),
      unitMs: leaseUnitMs(c.request.type),
    });
    if (!decision.use) {
      if ('why' in decision) {
        throw new VestaError(
          this.#unavailable,
          `${this.#where} is unreachable (${String(cause)}) and ${decision.why}`,
          { cause },
        );
      }
      const { gapMs, cached } = decision.clockBehind;
      throw this.#behind(gapMs, cached.markMs, cached.machineId, 'the cached time mark of');
    }
    const { cached, validUntilMs, notBeforeMs } = decision;
    o.logger.warn(
      { machineId: cached.machineId, validUntil: new Date(validUntilMs).toISOString() },
      `${this.#where} is unreachable: starting on the machine id cached by the last good lease`,
    );
    this.#stats.fromCache++;
    const fence = new LeaseFence(o.time, o.fenceAfterMs);
    fence.holdUntil(validUntilMs);
    const { machineId, markMs: floorMarkMs, era } = cached;
    const opening = { machineId, floorMarkMs, notBeforeMs, fence, era, claimed: undefined };
    // The cache kept the key: it is stable.
    return this.#lease(session, { ...c, stableKey: true }, opening);
  }

  #lease(
    session: LeaseSession<E, W, R, Win>,
    claimant: LeaseClaimant,
    started: Omit<CoordinatorLeaseStart, Given>,
  ): CoordinatorLease {
    const { coordinator, root } = this.#store;
    const given = { cache: this.#cache, journal: session.journal, options: this.#o };
    const start = { ...started, ...given, coordinator, root, claimant };
    return new CoordinatorLease(start, session.hold(started.machineId));
  }

  /** CLOCK_OUT_OF_SYNC beyond `maxClockSkewMs` plus half the round trip; else the store's clock. */
  async #checkClock(read: () => Promise<number>): Promise<CoordinatorClock> {
    const { time, maxClockSkewMs } = this.#o;
    const before = time.now();
    const mono = time.monotonic();
    const theirsMs = await read();
    const after = time.now();
    const rttMs = time.monotonic() - mono;
    const skewMs = Math.round((before + after) / 2 - theirsMs);
    if (Math.abs(skewMs) > maxClockSkewMs + rttMs / 2) {
      throw new VestaError(
        'CLOCK_OUT_OF_SYNC',
        `this host's clock is ${Math.abs(skewMs)} ms ${skewMs > 0 ? 'ahead of' : 'behind'} ${this.#store.coordinator}'s; more than the ${maxClockSkewMs} ms allowed`,
        { details: { skewMs, maxClockSkewMs } },
      );
    }
    const atMono = theirsMs + rttMs / 2;
    return { at: () => atMono + (time.monotonic() - mono) };
  }

  #behind(gapMs: number, markMs: number, machineId: number, which: string): VestaError {
    return new VestaError(
      'CLOCK_BEHIND_HIGH_WATER_MARK',
      `this host's clock is ${gapMs} ms behind ${which} machine id ${machineId}; more than the ${this.#o.maxClockWaitMs} ms allowed to wait`,
      { details: { gapMs, markMs, machineId } },
    );
  }

  #failure(error: unknown): VestaError {
    if (VestaError.is(error, 'MACHINE_ID_EXHAUSTED')) this.#stats.refused++;
    if (VestaError.is(error)) return error;
    return new VestaError(
      this.#unavailable,
      `could not lease a machine id from ${this.#where}: ${String(error)}`,
      { cause: error },
    );
  }
}

/** A session's rounds: read whole by the store, or a window at a time ({@link windowedRounds}). */
type Rounds<E extends LeaseEraState, W, R extends ClaimRow, Win extends IdWindow> = Pick<
  Extract<LeaseSession<E, W, R, Win>, { readRound: unknown }>,
  'connect' | 'era' | 'readRound'
>;

/**
 * The rounds of a start whose store reads a window at a time: the key's own id, else the window's
 * fresh ids (every other id left out), else every id read (a dead owner's only once none is fresh).
 * A read made along with the era's, once the era is open, serves the next round.
 */
export function windowedRounds<
  E extends LeaseEraState,
  W,
  R extends ClaimRow,
  Win extends IdWindow,
>(
  session: Pick<
    Extract<LeaseSession<E, W, R, Win>, { windows: unknown }>,
    'connect' | 'era' | 'windows'
  >,
  { stableKey, request: { range } }: Pick<LeaseClaimant, 'stableKey' | 'request'>,
): Rounds<E, W, R, Win> {
  const { era: eraStore, windows: verbs } = session;
  // The key's id as the store's index names it (a hint: the record decides), and as a scan of
  // every record found it (an era not indexed), once scanned.
  let indexed: number | undefined;
  let scanned: { readonly ownId: number | undefined } | undefined;
  let ahead: (WindowQuery<Win> & { readonly rows: readonly R[] }) | undefined;
  const own = () => (stableKey ? (scanned?.ownId ?? indexed) : undefined);
  // A window at random (starts spread over the range), with the key's own id when outside it.
  const query = (): WindowQuery<Win> => {
    const { windows } = verbs;
    const [window, id] = [windows[Math.floor(Math.random() * windows.length)] as Win, own()];
    return { window, ids: id !== undefined && !window.ids.has(id) ? [id] : [] };
  };
  const readAhead = (q: WindowQuery<Win>, era: E | undefined, rows: readonly R[] | undefined) => {
    if (era?.open === true && rows !== undefined) ahead = { ...q, rows };
  };
  // Connecting reads the first round's window along.
  const along = query();
  return {
    era: {
      readEra: () => eraStore.readEra(),
      createEra: (token) => eraStore.createEra(token),
      openEra: async (found) => {
        const q = query();
        const opened = await eraStore.openEra(found, q);
        if (opened) readAhead(q, opened.era, opened.also?.rows);
        return opened;
      },
    },
    connect: async () => {
      const first = await session.connect(along);
      if (first) {
        const id = first.indexed;
        indexed = id !== undefined && id >= range.min && id <= range.max ? id : undefined;
        readAhead(along, first.era, first.rows);
      }
      return first;
    },
    // `ownerWaitOver` read once: this round and the plan see the same.
    readRound: async ({ skip, ownerWaitOver }, era) => {
      const id = own();
      const q = ahead ?? query();
      let rows = ahead?.rows ?? (await verbs.read(q));
      ahead = undefined;
      let reads = 1;
      if (id !== undefined && !q.window.ids.has(id) && !q.ids.includes(id)) {
        reads++;
        rows = [...rows, ...(await verbs.read({ ids: [id] }))];
      }
      let byId = new Map(rows.map((r) => [r.machineId, r]));
      const names = (r: R | undefined) => r !== undefined && verbs.names(r);
      const ownRow = id === undefined ? undefined : byId.get(id);
      let ownId = names(ownRow) ? id : undefined;
      const scan = stableKey && ownId === undefined && era.indexed !== true && !scanned;
      const ownDecides =
        ownId !== undefined && !skip.has(ownId) && (!ownRow?.live || !ownerWaitOver);
      const fresh = [...q.window.ids].filter((i) => {
        const r = byId.get(i);
        return !skip.has(i) && (r === undefined || (!r.live && r.owner === null));
      });
      let left = skip;
      if (scan || (!ownDecides && fresh.length === 0)) {
        reads++;
        rows = await verbs.read({});
        byId = new Map(rows.map((r) => [r.machineId, r]));
        if (scan) {
          const inRange = rows.filter((r) => r.machineId >= range.min && r.machineId <= range.max);
          ownId = inRange.filter(names).sort((a, b) => verbs.newestFirst(a, b))[0]?.machineId;
          scanned = { ownId };
        } else if (!names(byId.get(ownId ?? -1))) ownId = undefined;
      } else {
        const all = Array.from({ length: range.max - range.min + 1 }, (_, i) => range.min + i);
        left = new Set([...skip, ...all.filter((i) => i !== ownId && !fresh.includes(i))]);
      }
      return {
        rows,
        ownId,
        skip: left,
        reads,
        ownerWaitOver,
        write: (candidate, markMs, claimed) =>
          verbs.claim(era, candidate, byId.get(candidate.machineId), markMs, claimed),
      };
    },
  };
}

/** A lease's health: `fenced`, issuing paused until the next confirmation; `lost`, for good. */
export interface CoordinatorLeaseStats {
  readonly renewals: number;
  readonly missedRenewals: number;
  /** Monotonic ms since the last confirming write was sent. */
  readonly confirmedAgeMs: number | undefined;
  readonly fenced: boolean;
  readonly lost: boolean;
}

/** Where a lease starts: the id's earlier mark (0: none), and one time unit past it. */
export interface CoordinatorLeaseStart {
  readonly machineId: number;
  readonly floorMarkMs: number;
  readonly notBeforeMs: number;
  readonly fence: LeaseFence;
  readonly cache: LeaseCache | undefined;
  readonly coordinator: string;
  readonly options: Pick<LeaseProviderOptions, 'time' | 'clock' | 'logger' | 'refreshIntervalMs'>;
  readonly root: string;
  readonly claimant: LeaseClaimant;
  readonly era: string | undefined;
  /** The era and version the claim wrote; none when started from the cache. */
  readonly claimed: Held | undefined;
  readonly journal?: LeaseJournal;
}

export type HoldLoss =
  | { readonly lost: 'era' }
  | { readonly lost: 'moved'; readonly owner: string | null }
  | { readonly lost: 'other'; readonly why: string };

export type HoldRenewal =
  | 'confirmed'
  /** A cached start taken back under this era. */
  | { readonly confirmedUnder: string }
  /** Confirmed by the keep-alive alone: the mark last published stands. */
  | 'kept'
  | 'missed'
  | HoldLoss;

/** One renewal turn; `mark()` and `keep()` start its confirmation (with or without a new mark). */
export interface HoldTurn {
  readonly everConfirmed: boolean;
  readonly era: string | undefined;
  mark(...floorsMs: readonly number[]): number;
  /** How long the mark last published still stands ahead of the wall clock (ms). */
  readonly markStandsMs: number;
  keep(): void;
  readonly closed: boolean;
}

type Given = 'cache' | 'journal' | 'options' | 'coordinator' | 'root' | 'claimant';
type Held = { readonly era: LeaseEraState; readonly version: unknown };

const takenMeanwhile: HoldLoss = {
  lost: 'other',
  why: 'the cached id was taken by another holder meanwhile, or the store lost its data',
};

type Renew = (turn: HoldTurn) => Promise<HoldRenewal>;
type Internals = { abandon(): void; renew: Renew; verbs: HoldVerbs<unknown> };
const internals = new WeakMap<object, Internals>();

/** For `@vesta/lease/testing`. */
export function internalsOf(lease: object): Internals {
  const found = internals.get(lease);
  if (found === undefined) throw new TypeError('not a coordinator lease');
  return found;
}

/** A machine id held over a store's {@link HoldVerbs}: renewals, fence, loss, cache, final mark. */
export class CoordinatorLease implements MachineIdLease {
  readonly machineId: number;
  readonly notBeforeMs: number;
  readonly key: string;
  readonly #start: CoordinatorLeaseStart;
  readonly #verbs: HoldVerbs<unknown>;
  readonly #fence: LeaseFence;
  readonly #loop: ReturnType<typeof renewalLoop>;
  /** None after a start from the cache until taken back. */
  #held: Held | undefined;
  /** A take-back whose answer was lost, found by a later read: its next write confirms it. */
  #takenBackUnder: string | undefined;
  #era: string | undefined;
  #confirmed: boolean;
  #toldMs = 0;
  #lost: VestaError | undefined;
  #fenced = false;
  #closed = false;
  #releasing: Promise<void> | undefined;
  #renewals = 0;
  readonly #startedAtMs: number;
  #claimJournaled: Promise<void> = Promise.resolve();
  #claimToJournal = false;

  constructor(start: CoordinatorLeaseStart, verbs: HoldVerbs<unknown>) {
    this.#start = start;
    this.#verbs = verbs;
    this.machineId = start.machineId;
    this.notBeforeMs = start.notBeforeMs;
    this.key = start.claimant.key;
    this.#fence = start.fence;
    this.#era = start.era;
    this.#confirmed = start.claimed !== undefined;
    this.#held = start.claimed;
    this.#startedAtMs = start.options.clock();
    // A run given up on leaves its connection.
    this.#loop = renewalLoop(
      start.options.time,
      start.options.refreshIntervalMs,
      (run) => this.#renew(run),
      () => verbs.reconnect?.(),
    );
    if (this.#confirmed) this.#writeCache(start.fence.markMs);
    internals.set(this, { abandon: () => this.#abandon(), renew: (t) => this.#turn(t), verbs });
  }

  /** Throws MACHINE_ID_LEASE_LOST while fenced or lost. */
  assertValid(): void {
    if (this.#lost !== undefined) throw this.#lost;
    if (this.#fence.fenced) {
      throw new VestaError(
        'MACHINE_ID_LEASE_LOST',
        `machine id ${this.machineId}: the ${this.#start.coordinator} lease was not confirmed within ${this.#fence.fenceAfterMs} ms; issuing is paused`,
        { details: { machineId: this.machineId } },
      );
    }
  }

  onHighWaterMark(markMs: number): void {
    this.#toldMs = markMs;
  }

  get valid(): boolean {
    return this.#lost === undefined && !this.#fence.fenced;
  }

  get lost(): boolean {
    return this.#lost !== undefined;
  }

  get stats(): CoordinatorLeaseStats {
    return Object.freeze({
      renewals: this.#renewals,
      missedRenewals: this.#loop.turns - this.#renewals,
      confirmedAgeMs: this.#fence.confirmedAgeMs,
      fenced: this.#fence.fenced,
      lost: this.lost,
    });
  }

  /** Publishes the final mark and ends the hold (a key not stable gives the id up). */
  release(): Promise<void> {
    if (this.#closed && this.#releasing === undefined) return Promise.resolve();
    return (this.#releasing ??= this.#release());
  }

  async #release(): Promise<void> {
    this.#loop.stop();
    // A renewal in flight completes first: the release's write is compared against its write.
    await this.#loop.settled();
    this.#closed = true;
    const { options, floorMarkMs, claimant } = this.#start;
    const held = this.#held;
    try {
      if (this.#lost === undefined && this.#confirmed && held !== undefined) {
        // Journaled while still held: after the release it could close a newcomer's tenure.
        await this.#claimJournaled;
        if (this.#claimToJournal) {
          this.#journalClaim();
          await this.#claimJournaled;
        }
        const markMs = Math.max(this.#toldMs, floorMarkMs, options.clock());
        const holding = holdingOf(claimant, markMs, claimant.stableKey);
        if (await this.#verbs.release(held.era, holding, held.version)) {
          this.#writeCache(markMs);
          // Unjournaled, the tenure runs on to the next claim's floor mark: wider, never wrong.
          await this.#journal('released', { markMs }).catch((error: unknown) =>
            this.#warn('could not journal the release of the machine id', error),
          );
        }
      }
    } catch (error) {
      this.#warn('could not publish the final time mark; the last one stands', error);
    } finally {
      await this.#verbs.close();
    }
  }

  #warn(message: string, error: unknown): void {
    this.#start.options.logger.warn({ machineId: this.machineId, error: String(error) }, message);
  }

  /**
   * A held id is written first, a conflict read again (a record still this start's is adopted). One
   * not held (a start from the cache, a lapse) is read first, then taken back: under the cache's
   * open era, from a record of this key not past the cached mark (after a lapse: this start's),
   * once not live. A keep-alive alone confirms a turn while the mark stands beyond half the fence
   * and two turns (the next write can still retry).
   */
  async #turn(turn: HoldTurn): Promise<HoldRenewal> {
    const v = this.#verbs;
    const { claimant: c, options, floorMarkMs } = this.#start;
    type Found = HeldRecord<unknown>['record'];
    const mine = (r: Found): r is NonNullable<Found> =>
      r?.owner === c.key && r.instance === c.instance;
    const moved = (r: Found): HoldLoss => ({ lost: 'moved', owner: r?.owner ?? null });
    let held = this.#held;
    let floors: number[] | undefined;
    if (held === undefined || v.lapsed?.() === true) {
      const { era, record } = await v.read();
      if (turn.closed) return 'missed';
      if (era?.open !== true || (turn.era !== undefined && era.era !== turn.era)) {
        return { lost: 'era' };
      }
      // From the cache: this start's own take-back landed though its answer was lost.
      if (!turn.everConfirmed && mine(record)) {
        this.#held = { era, version: record.version };
        this.#takenBackUnder = era.era;
        return 'missed';
      }
      const ours = turn.everConfirmed
        ? mine(record)
        : record?.owner === c.key && record.markMs <= floorMarkMs;
      if (!ours || record === undefined) return turn.everConfirmed ? moved(record) : takenMeanwhile;
      // Held live by an earlier start of this key that died: its store-side lease goes in time.
      if (record.live) return 'missed';
      held = { era, version: record.version };
      floors = [record.markMs];
    }
    const taking = floors !== undefined;
    const keepsAbove = Math.max(this.#fence.fenceAfterMs / 2, 2 * options.refreshIntervalMs);
    const keep = !taking && v.keepAlive !== undefined && turn.markStandsMs > keepsAbove;
    const markMs = keep ? undefined : turn.mark(...(floors ?? []));
    if (keep) turn.keep();
    if (v.keepAlive !== undefined) {
      const alive = await v.keepAlive();
      if (turn.closed) return 'missed';
      if (keep && alive) return 'kept';
    }
    const holding = holdingOf(c, markMs ?? turn.mark());
    const written = await v.renew(held.era, holding, held.version, taking);
    if (turn.closed) return 'missed';
    if (written === 'conflict' && taking) return takenMeanwhile;
    if (written === 'conflict') {
      const { era, record } = await v.read();
      if (turn.closed) return 'missed';
      if (era?.era !== held.era.era || !era.open) return { lost: 'era' };
      if (!mine(record)) return moved(record);
      this.#held = { era, version: record.version };
      return 'missed';
    }
    this.#held = { era: held.era, version: written };
    if (taking) return { confirmedUnder: held.era.era };
    if (v.counts !== undefined && !(await v.counts())) return 'missed';
    const confirmedUnder = this.#takenBackUnder;
    this.#takenBackUnder = undefined;
    return confirmedUnder === undefined ? 'confirmed' : { confirmedUnder };
  }

  #recordConfirmation(markMs: number, sentAt: number, era: string | undefined): void {
    this.#era = era;
    this.#fence.confirm(markMs, sentAt);
    this.#renewals++;
    this.#writeCache(markMs);
    if (!this.#confirmed) {
      this.#confirmed = true;
      this.#start.options.logger.warn(
        { machineId: this.machineId },
        `${this.#start.coordinator} reachable again: the cached machine id is confirmed`,
      );
      this.#claimToJournal = true;
    }
    if (this.#claimToJournal) this.#journalClaim();
  }

  /** A cached start's `claimed` entry, late, at the start's time. */
  #journalClaim(): void {
    this.#claimToJournal = false;
    this.#claimJournaled = this.#journal('claimed', {
      atMs: this.#startedAtMs,
      floorMarkMs: this.#start.floorMarkMs,
    }).catch((error: unknown) => {
      this.#claimToJournal = true;
      this.#warn(
        'could not journal the confirmed claim of the cached machine id; trying again at the next renewal',
        error,
      );
    });
  }

  async #journal(event: LeaseJournalEntry['event'], fields: Partial<EntryFields>): Promise<void> {
    const { claimant, options } = this.#start;
    const entry = entryOf(event, this.machineId, claimant, { atMs: options.clock(), ...fields });
    await (this.#verbs.journal ?? this.#start.journal)?.append(entry);
  }

  #lose(loss: HoldLoss): void {
    const why =
      loss.lost === 'era'
        ? `${this.#start.coordinator} lost its data (the allocation era it was leased under is gone)`
        : loss.lost === 'other'
          ? loss.why
          : loss.owner === null
            ? 'now released'
            : `now owned by ${loss.owner}`;
    const owner = loss.lost === 'other' ? {} : { owner: loss.lost === 'era' ? null : loss.owner };
    const { machineId, key } = this;
    const message = `machine id ${machineId} is no longer held by this instance (${key}): ${why}. Issuing stopped for good: restart to get a new id`;
    this.#start.options.logger.error({ machineId, key, ...owner }, message);
    this.#stop(message, { machineId, ...owner }, this.#verbs.closeOnLoss === true);
  }

  #stop(message: string, details: Record<string, unknown> | undefined, close: boolean): void {
    this.#lost = new VestaError('MACHINE_ID_LEASE_LOST', message, details && { details });
    this.#loop.stop();
    if (close) void Promise.resolve(this.#verbs.close()).catch(() => undefined);
  }

  #abandon(): void {
    this.#closed = true;
    this.#stop(`machine id ${this.machineId}: the lease was abandoned`, undefined, true);
  }

  async #renew(run: RenewalRun): Promise<void> {
    if (this.#closed || this.#lost !== undefined) return;
    let sent: { markMs: number; sentAt: number } | undefined;
    // Closed for this turn too once the loop gave up on it: it sends nothing more.
    const closed = (): boolean => this.#closed || run.abandoned;
    const fence = this.#fence;
    const { quiet } = this.#verbs;
    try {
      const renewal = await this.#turn({
        everConfirmed: this.#confirmed,
        era: this.#era,
        get closed() {
          return closed();
        },
        mark: (...floorsMs) => {
          const sentAt = fence.sendTime();
          const markMs = fence.markToPublish(this.#toldMs, this.#start.floorMarkMs, ...floorsMs);
          sent = { markMs, sentAt };
          return markMs;
        },
        markStandsMs:
          this.#toldMs > fence.markMs ? 0 : Math.max(0, fence.markMs - this.#start.options.clock()),
        keep: () => {
          sent = { markMs: fence.markMs, sentAt: fence.sendTime() };
        },
      });
      // A lease closed meanwhile (or a turn given up on) takes in nothing its write answered.
      if (closed() || renewal === 'missed') return;
      if (typeof renewal === 'object' && 'lost' in renewal) return this.#lose(renewal);
      if (sent === undefined) return;
      const era = typeof renewal === 'string' ? this.#era : renewal.confirmedUnder;
      this.#recordConfirmation(sent.markMs, sent.sentAt, era);
    } catch (error) {
      if (!closed()) {
        this.#verbs.reconnect?.();
        if (quiet === undefined || !VestaError.is(error, quiet)) {
          this.#warn('could not renew the machine id lease', error);
        }
      }
    } finally {
      this.#logTransitions();
    }
  }

  #logTransitions(): void {
    if (this.#closed || this.#lost !== undefined) return;
    const [fenced, { logger }, { machineId }] = [this.#fence.fenced, this.#start.options, this];
    if (fenced && !this.#fenced) {
      const { fenceAfterMs } = this.#fence;
      const why = `machine id lease not confirmed by ${this.#start.coordinator} in time`;
      logger.error({ machineId, fenceAfterMs }, `${why}: issuing is paused`);
    } else if (!fenced && this.#fenced) {
      logger.warn({ machineId }, 'machine id lease confirmed again: issuing resumes');
    }
    this.#fenced = fenced;
  }

  #writeCache(markMs: number): void {
    const { cache, claimant, root, options } = this.#start;
    if (cache === undefined || !claimant.stableKey) return;
    try {
      cache.write({
        root,
        key: this.key,
        machineId: this.machineId,
        markMs,
        confirmedAtMs: options.clock(),
        ...(this.#era === undefined ? {} : { era: this.#era }),
      });
    } catch (error) {
      options.logger.warn(
        { error: String(error) },
        'could not cache the machine id lease in the state dir',
      );
    }
  }
}

/** A run the loop gave up on must send nothing more. */
export type RenewalRun = { readonly abandoned: boolean };

/** A turn due while a run is busy is skipped; the next abandons it (a hung run costs two turns). */
const ABANDON_AFTER_TURNS = 2;

/** Runs `renew` every `intervalMs`, one run at a time, on unref'd timers; `settled` never rejects. */
export function renewalLoop(
  time: TimeSource,
  intervalMs: number,
  renew: (run: RenewalRun) => Promise<void>,
  abandoned: () => void = () => undefined,
) {
  let timer: TimerHandle | undefined;
  let running: { abandoned: boolean; overdue: number } | undefined;
  const unsettled = new Set<Promise<void>>();
  let stopped = false;
  let turns = 0;
  const due = (): void => {
    if (stopped) return;
    timer = time.setTimer(due, intervalMs).unref();
    turns++;
    if (running !== undefined) {
      if (++running.overdue < ABANDON_AFTER_TURNS) return;
      running.abandoned = true;
      try {
        abandoned();
      } catch {
        // A hold that cannot reconnect now tries again at its next failed turn.
      }
    }
    const run = { abandoned: false, overdue: 0 };
    running = run;
    const done: Promise<void> = renew(run)
      .catch(() => undefined)
      .finally(() => {
        if (running === run) running = undefined;
        unsettled.delete(done);
      });
    unsettled.add(done);
  };
  timer = time.setTimer(due, intervalMs).unref();
  return {
    /** Turns that fell due so far, including those skipped. */
    get turns() {
      return turns;
    },
    stop: () => {
      stopped = true;
      timer?.cancel();
    },
    settled: () => Promise.all(unsettled).then(() => undefined),
  };
}

interface LeaseEraHooks {
  readonly onCreated?: (era: string) => void;
  /** Told once, before the wait. */
  readonly onWait?: (era: string, waitMs: number) => void;
}

/** Logged before the era wait, so that a first start does not look hung. */
export function eraWaitLog(
  logger: Logger,
  coordinator: string,
  fields: Record<string, unknown>,
): LeaseEraHooks {
  return {
    onWait: (era, waitMs) =>
      logger.warn(
        { ...fields, era, waitMs },
        `${coordinator} holds no open allocation era (a new store, or it lost its data): no machine id is handed out for ${Math.ceil(waitMs / 1000)} s, until every holder of ids of lost data has fenced itself`,
      ),
  };
}

/**
 * The store's era once open. A missing one (a new store, or lost data) is created closed and opened
 * `waitMs` (monotonic) after first seen missing or closed, once every old holder fenced itself.
 */
export async function enterLeaseEra<E extends LeaseEraState>(
  store: LeaseEraStore<E>,
  waitMs: number,
  time: TimeSource,
  hooks: LeaseEraHooks = {},
  known?: EraAnswer<E>,
): Promise<E> {
  let closedEra: string | undefined;
  let since: number | undefined;
  let told = false;
  // An answer read along with another request stands for the next read.
  let next = known;
  for (;;) {
    const found = next === undefined ? await store.readEra() : next.after;
    next = undefined;
    // Stamped on the answer: the store may have lost its data while the read was on its way.
    const seenAt = time.monotonic();
    if (found?.open === true) return found;
    const replaced = closedEra !== undefined && found !== undefined && found.era !== closedEra;
    if (since === undefined || replaced) since = seenAt;
    if (found === undefined) {
      const era = randomUUID();
      const created = await store.createEra(era);
      if (typeof created === 'object') next = created;
      if (typeof created === 'object' ? created.created : created) hooks.onCreated?.(era);
      continue;
    }
    closedEra = found.era;
    const remainingMs = since + waitMs - time.monotonic();
    if (remainingMs > 0) {
      if (!told) hooks.onWait?.(found.era, remainingMs);
      told = true;
      await sleepOn(time, remainingMs);
      continue;
    }
    const opened = await store.openEra(found);
    if (opened) next = { after: opened.era };
  }
}
