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
  type HoldVerbs,
  type LeaseClaimant,
  type LeaseEraState,
  type LeaseEraStore,
  type LeaseOpening,
  type LeaseSession,
  type LeaseStartFrom,
  type LeaseStore,
  type StoreRound,
} from './LeaseStore.js';
import { planLeaseClaim, snapshotOfRows, type ClaimCandidate } from './planLeaseClaim.js';

/** Rounds a start may lose to concurrent starts before it gives up. */
const MAX_ROUNDS = 50;

/**
 * Claims a round tries before it reads again: after that many lost races its snapshot is stale,
 * and a fresh read costs one round trip where trying on could cost one per id taken since.
 */
const TRIES_PER_ROUND = 3;

/** What a provider's acquisitions did (metrics, figures). */
export interface LeaseClaimStats {
  /** Ids taken that had never been used, or were released. */
  readonly fresh: number;
  /** Ids given back to the key that held them before. */
  readonly reused: number;
  /** Dead owners' ids taken over after the reclaim delay. */
  readonly reclaimed: number;
  /** Start-ups refused with MACHINE_ID_EXHAUSTED. */
  readonly refused: number;
  /** Start-ups on the cached lease while the coordinator was unreachable. */
  readonly fromCache: number;
}

/** The options a provider reads; `fallbackToCache` may be missing (a store without a cache). */
export type LeaseProviderOptions = Omit<ResolvedLeaseOptions, NotRead | 'fallbackToCache'> &
  Partial<Pick<ResolvedLeaseOptions, 'fallbackToCache'>> & {
    /** Orders the free ids a round tries. @default Math.random */
    readonly random?: () => number;
  };

type NotRead = 'connectTimeoutMs' | 'operationTimeoutMs' | 'journalRetention';

/** Milliseconds in one time unit of an id type: a new holder starts one unit past a mark. */
export function leaseUnitMs(type: number): number {
  return vestaUnitMs(type === IdType.MIN_GRANULARITY ? IdType.MIN_GRANULARITY : IdType.MAX_PEAK);
}

/**
 * Leases machine ids from a coordinator's store, the same way for every store: the store (a
 * {@link LeaseStore}) offers data verbs, this engine owns the policy: connect, or start on the
 * state dir's cached lease when the store is unreachable; check the clock; rounds of era, read,
 * plan ({@link planLeaseClaim}) and fenced claim until one wins or the range is full; then the
 * {@link CoordinatorLease} on the claim's hold. A coordinator's provider class extends this one.
 */
export class LeaseProvider<
  E extends LeaseEraState = LeaseEraState,
  W = unknown,
> implements MachineIdProvider {
  readonly #store: LeaseStore<E, W>;
  readonly #o: LeaseProviderOptions;
  readonly #cache: LeaseCache | undefined;
  /** The coordinator in messages, e.g. `PostgreSQL at db:5432`. */
  readonly #where: string;
  readonly #unavailable: VestaErrorCode;
  readonly #stats = { fresh: 0, reused: 0, reclaimed: 0, refused: 0, fromCache: 0 };
  #roundTrips = 0;

  constructor(store: LeaseStore<E, W>, options: LeaseProviderOptions) {
    this.#store = store;
    this.#o = options;
    this.#cache =
      options.stateDir === undefined
        ? undefined
        : new LeaseCache(options.stateDir, store.files, store.root);
    this.#where = `${store.coordinator} at ${store.address}`;
    this.#unavailable = store.unavailable ?? 'COORDINATOR_UNAVAILABLE';
  }

  /** What this provider's acquisitions did so far (a frozen snapshot). */
  get stats(): LeaseClaimStats {
    return Object.freeze({ ...this.#stats });
  }

  /** The store round trips this provider's claims cost so far: each round's reads and each claim write. */
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
    try {
      await session.connect();
    } catch (cause) {
      if (!store.startsFromCache) {
        await session.close();
        throw this.#failure(cause);
      }
      return this.#startFromCache(session, c, cause);
    }
    try {
      await session.prepare?.();
      // Called on the session: a session may be a class whose readClock reads `this`.
      const { readClock } = session;
      const clock =
        readClock === undefined ? undefined : await this.#checkClock(() => readClock.call(session));
      // Won or failed, the claim is over before a failure closes the session.
      return await this.#claim(session, c, clock).finally(() => session.claimEnded?.());
    } catch (error) {
      await session.close();
      throw this.#failure(error);
    }
  }

  /**
   * Rounds until a claim wins: waiting (up to `ownerWaitMs`) while the key's own id is held by its
   * previous holder, then taking another; MACHINE_ID_EXHAUSTED once a read shows no id left, or
   * after {@link MAX_ROUNDS} lost rounds.
   */
  async #claim(
    session: LeaseSession<E, W>,
    c: LeaseClaimant,
    clock: CoordinatorClock | undefined,
  ): Promise<CoordinatorLease> {
    const o = this.#o;
    const store = this.#store;
    const { min, max } = c.request.range;
    const ownerWaitUntil = o.time.monotonic() + o.ownerWaitMs;
    const skip = new Set<number>();
    for (let n = 0; n < MAX_ROUNDS; n++) {
      // Every round enters the era anew: a claim that lost to a data loss waits for the new era.
      const era = await enterLeaseEra(
        session.era,
        o.eraWaitMs,
        o.time,
        eraWaitLog(o.logger, store.coordinator, store.eraLogFields),
      );
      // Read when the round builds its snapshot (after the era, which may wait).
      const state: ClaimRoundState = {
        skip,
        get ownerWaitOver() {
          return o.time.monotonic() >= ownerWaitUntil;
        },
      };
      const round = await session.readRound(state, era, clock);
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
        this.#stats[candidate.kind]++;
        if (candidate.kind === 'reclaimed') {
          o.logger.warn(
            {
              machineId: candidate.machineId,
              previousOwner: candidate.record?.owner ?? null,
              idleMs: candidate.record?.idleMs,
            },
            'reclaimed the machine id of a dead owner',
          );
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

  /**
   * Claims `candidate` with its first mark `fenceAfterMs` past both the clock and one unit past
   * the stored mark, journals it (no id is issued without its `claimed` entry) and confirms the
   * fence from when the write was sent; undefined when a concurrent start won the id. A lease
   * whose first id the clock cannot reach within `maxClockWaitMs` is released again.
   */
  async #take(
    session: LeaseSession<E, W>,
    c: LeaseClaimant,
    era: E,
    round: StoreRound<W>,
    candidate: ClaimCandidate,
  ): Promise<CoordinatorLease | undefined> {
    const o = this.#o;
    const { machineId } = candidate;
    const floorMarkMs = round.markMs(candidate.machineId) ?? 0;
    const fence = new LeaseFence(o.time, o.fenceAfterMs);
    const sentAt = fence.sendTime();
    const notBeforeMs = floorMarkMs === 0 ? 0 : floorMarkMs + leaseUnitMs(c.request.type);
    const markMs = fence.markToPublish(notBeforeMs + o.fenceAfterMs);
    const claimed = (): LeaseJournalEntry => ({
      event: 'claimed',
      machineId,
      holder: c.key,
      instance: c.instance,
      atMs: o.clock(),
      floorMarkMs,
    });
    const written = await round.write(candidate, markMs, claimed());
    if (written === undefined) return undefined;
    // A failure to journal fails the start (the claim is left to expire).
    if (session.journalsClaims !== true) await session.journal.append(claimed());
    fence.confirm(markMs, sentAt);
    const opening = { machineId, floorMarkMs, notBeforeMs, fence, cache: this.#cache };
    const lease = this.#lease(session, c, opening, { claimed: { era, written } });
    const gapMs = notBeforeMs - o.clock();
    if (gapMs > o.maxClockWaitMs) {
      await lease.release();
      throw this.#behind(gapMs, floorMarkMs, machineId, 'the time mark stored for');
    }
    return lease;
  }

  /** A start while the store is unreachable: on the cached lease if {@link cachedLeaseFallback} allows. */
  async #startFromCache(
    session: LeaseSession<E, W>,
    c: LeaseClaimant,
    cause: unknown,
  ): Promise<CoordinatorLease> {
    const o = this.#o;
    let decision: ReturnType<typeof cachedLeaseFallback>;
    try {
      decision = cachedLeaseFallback({
        ...o,
        fallbackToCache: o.fallbackToCache ?? false,
        cache: this.#cache,
        key: c.key,
        root: this.#store.root,
        range: c.request.range,
        nowMs: o.clock(),
        unitMs: leaseUnitMs(c.request.type),
      });
    } catch (error) {
      await session.close(); // the state dir could not be read
      throw error;
    }
    if (!decision.use) {
      await session.close();
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
    const { machineId, markMs: floorMarkMs } = cached;
    // The cache kept the key: it is stable.
    return this.#lease(
      session,
      { ...c, stableKey: true },
      { machineId, floorMarkMs, notBeforeMs, fence, cache: this.#cache },
      { cached },
    );
  }

  #lease(
    session: LeaseSession<E, W>,
    claimant: LeaseClaimant,
    opening: LeaseOpening,
    from: LeaseStartFrom<E, W>,
  ): CoordinatorLease {
    const { coordinator, root } = this.#store;
    const claimed = 'claimed' in from ? from.claimed : undefined;
    return new CoordinatorLease(
      {
        ...opening,
        journal: session.journal,
        coordinator,
        options: this.#o,
        root,
        claimant,
        era: 'claimed' in from ? from.claimed.era.era : from.cached.era,
        claimed: claimed && { version: session.versionOf?.(claimed.written) ?? claimed.written },
      },
      session.hold(opening, from),
    );
  }

  /**
   * Compares the coordinator's clock (`read`) with this host's at the middle of the round
   * trip: CLOCK_OUT_OF_SYNC beyond `maxClockSkewMs` plus half the round trip. Returns the
   * coordinator's clock, extrapolated on the monotonic one.
   */
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

  /** A failure's own VestaError (a refusal counted), anything else as the store unavailable. */
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

/** A lease's health (metrics, health checks). */
export interface CoordinatorLeaseStats {
  /** Confirming writes that succeeded (renewals and re-confirmations). */
  readonly renewals: number;
  /** Renewal turns that confirmed nothing (unreachable, failed, timed out, still waiting). */
  readonly missedRenewals: number;
  /** Monotonic ms since the last confirming write was sent; undefined before the first one. */
  readonly confirmedAgeMs: number | undefined;
  /** Issuing is paused: the lease was not confirmed in time (it resumes on the next renewal). */
  readonly fenced: boolean;
  /** The id belongs to someone else now, or the coordinator lost it: issuing stopped for good. */
  readonly lost: boolean;
}

/** How a coordinator lease starts: what its provider claimed, or found in its cache. */
export interface CoordinatorLeaseStart extends LeaseOpening {
  readonly coordinator: string;
  readonly options: Pick<LeaseProviderOptions, 'time' | 'clock' | 'logger' | 'refreshIntervalMs'>;
  readonly root: string;
  readonly claimant: LeaseClaimant;
  /** The era it was claimed under, or (from the cache) last confirmed under. */
  readonly era: string | undefined;
  /** The record's version the claim wrote; none when started from the cache. */
  readonly claimed: { readonly version: unknown } | undefined;
  readonly journal?: LeaseJournal;
}

/** Why the id is no longer this holder's. */
export type HoldLoss =
  | { readonly lost: 'era' }
  | { readonly lost: 'moved'; readonly owner: string | null }
  | { readonly lost: 'other'; readonly why: string };

/** What one renewal turn came to. */
export type HoldRenewal =
  | 'confirmed'
  /** Confirmed, and held under this era from now on (a cached start taken back). */
  | { readonly confirmedUnder: string }
  /** Confirmed by the store's keep-alive alone: the mark last published stands. */
  | 'kept'
  | 'missed'
  | HoldLoss;

/** One renewal turn, as the hold's policy sees it. */
export interface HoldTurn {
  /** False only after a start from the cache, until the id is taken back. */
  readonly everConfirmed: boolean;
  readonly era: string | undefined;
  /** The mark this turn publishes; the confirmation runs from this call. */
  mark(...floorsMs: readonly number[]): number;
  /** How long the mark last published still stands ahead of the wall clock (ms). */
  readonly markStandsMs: number;
  /** Starts a turn that publishes no mark. */
  keep(): void;
  /** Whether the lease closed since the turn began: then nothing more is sent. */
  readonly closed: boolean;
}

const takenMeanwhile: HoldLoss = {
  lost: 'other',
  why: 'the cached id was taken by another holder meanwhile, or the store lost its data',
};

interface Internals {
  abandon(): void;
  renew(turn: HoldTurn): Promise<HoldRenewal>;
  verbs: HoldVerbs<unknown>;
}

const internals = new WeakMap<object, Internals>();

/** A coordinator lease's hooks for `@vesta/lease/testing`. */
export function internalsOf(lease: object): Internals {
  const found = internals.get(lease);
  if (found === undefined) throw new TypeError('not a coordinator lease');
  return found;
}

/**
 * A machine id leased from a coordinator, the same for every store: the renewal loop, the fence
 * (issuing pauses when not confirmed within `fenceAfterMs`, resumes on the next confirmation),
 * loss for good, the state-dir cache, the journal, the final mark on release, stats and their
 * log lines, over the store's {@link HoldVerbs}.
 */
export class CoordinatorLease implements MachineIdLease {
  readonly machineId: number;
  readonly notBeforeMs: number;
  readonly key: string;
  readonly #start: CoordinatorLeaseStart;
  readonly #verbs: HoldVerbs<unknown>;
  readonly #fence: LeaseFence;
  readonly #loop: RenewalLoop;
  /** The era and record version last written; none after a start from the cache until taken back. */
  #held: { era: string; version: unknown } | undefined;
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
  /** A cached start's `claimed` entry on its way (a release appends after it). */
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
    if (start.claimed !== undefined && start.era !== undefined) {
      this.#held = { era: start.era, version: start.claimed.version };
    }
    this.#startedAtMs = start.options.clock();
    // A run given up on (a request that hangs) leaves its connection: the next starts afresh.
    this.#loop = renewalLoop(
      start.options.time,
      start.options.refreshIntervalMs,
      (run) => this.#renew(run),
      () => verbs.reconnect?.(),
    );
    if (this.#confirmed) this.#writeCache(start.fence.markMs);
    internals.set(this, { abandon: () => this.#abandon(), renew: (t) => this.#turn(t), verbs });
  }

  /** Throws MACHINE_ID_LEASE_LOST while the lease is not confirmed recently enough, or is lost. */
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

  /** The service raises its mark while it runs and lowers it to just past its last id at close. */
  onHighWaterMark(markMs: number): void {
    this.#toldMs = markMs;
  }

  /** Whether the lease is confirmed now (not fenced, not lost). */
  get valid(): boolean {
    return this.#lost === undefined && !this.#fence.fenced;
  }

  /** True once the id was found to be someone else's or lost with the coordinator's data. */
  get lost(): boolean {
    return this.#lost !== undefined;
  }

  /** A frozen snapshot. */
  get stats(): CoordinatorLeaseStats {
    return Object.freeze({
      renewals: this.#renewals,
      missedRenewals: this.#loop.turns - this.#renewals,
      confirmedAgeMs: this.#fence.confirmedAgeMs,
      fenced: this.#fence.fenced,
      lost: this.lost,
    });
  }

  /**
   * Publishes the final mark (just past the last id issued) and ends the hold; an instance
   * without a stable key gives the id up. Closes the connection.
   */
  release(): Promise<void> {
    if (this.#releasing === undefined) {
      if (this.#closed) return Promise.resolve();
      this.#releasing = this.#release();
    }
    return this.#releasing;
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
        // A cached start's entry lands while the id is still held: after the release, a
        // newcomer's claim could come first, and this entry would close its tenure early.
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
   * One turn's policy: publish the next mark on the version last written; a conflict is read
   * again (a record still this start's is adopted, its write's answer was lost). A store with a
   * keep-alive confirms the turn by it alone while the mark stands longer than half the fence
   * and two turns: the store keeps its live key for the fence from when it was sent, and the
   * next write still leaves a turn to retry before the mark runs out.
   */
  async #turn(turn: HoldTurn): Promise<HoldRenewal> {
    const v = this.#verbs;
    const held = this.#held;
    if (held === undefined || v.lapsed?.() === true) {
      return v.retake === undefined ? 'missed' : this.#retake(turn, v.retake);
    }
    const c = this.#start.claimant;
    const keepsAbove = Math.max(
      this.#fence.fenceAfterMs / 2,
      2 * this.#start.options.refreshIntervalMs,
    );
    const keep = v.keepAlive !== undefined && turn.markStandsMs > keepsAbove;
    let markMs: number | undefined;
    if (keep) turn.keep();
    else markMs = turn.mark();
    if (v.keepAlive !== undefined) {
      const alive = await v.keepAlive();
      if (turn.closed) return 'missed';
      if (keep && alive) return 'kept';
    }
    const written = await v.renew(held.era, holdingOf(c, markMs ?? turn.mark()), held.version);
    if (turn.closed) return 'missed';
    if (written === 'conflict') {
      const { era, record } = await v.read();
      if (turn.closed) return 'missed';
      if (era?.era !== held.era || !era.open) return { lost: 'era' };
      if (record?.owner !== c.key || record.instance !== c.instance) {
        return { lost: 'moved', owner: record?.owner ?? null };
      }
      this.#held = { era: held.era, version: record.version };
      return 'missed';
    }
    this.#held = { era: held.era, version: written };
    if (v.counts !== undefined && !(await v.counts())) return 'missed';
    const confirmedUnder = this.#takenBackUnder;
    this.#takenBackUnder = undefined;
    return confirmedUnder === undefined ? 'confirmed' : { confirmedUnder };
  }

  /**
   * After a start from the cache (or a lapse of the store's own lease) the id is taken back only
   * under the open era the cache names, from a record of this key whose mark is not past the
   * cached one (after a lapse: still this start's), once no earlier start holds it live.
   */
  async #retake(
    turn: HoldTurn,
    retake: NonNullable<HoldVerbs<unknown>['retake']>,
  ): Promise<HoldRenewal> {
    const c = this.#start.claimant;
    const { era, record } = await this.#verbs.read();
    if (turn.closed) return 'missed';
    if (era === undefined || !era.open || (turn.era !== undefined && era.era !== turn.era)) {
      return { lost: 'era' };
    }
    const mine = record?.owner === c.key && record.instance === c.instance;
    // From the cache: this start's own take-back landed though its answer was lost.
    if (!turn.everConfirmed && mine) {
      this.#held = { era: era.era, version: record.version };
      this.#takenBackUnder = era.era;
      return 'missed';
    }
    const ours = turn.everConfirmed
      ? mine
      : record?.owner === c.key && record.markMs <= this.#start.floorMarkMs;
    if (!ours || record === undefined) {
      return turn.everConfirmed ? { lost: 'moved', owner: record?.owner ?? null } : takenMeanwhile;
    }
    // Held live by an earlier start of this key that died: its store-side lease goes in time.
    if (record.live) return 'missed';
    const holding = holdingOf(c, turn.mark(record.markMs));
    if (this.#verbs.keepAlive !== undefined) {
      await this.#verbs.keepAlive();
      if (turn.closed) return 'missed';
    }
    const written = await retake(era.era, holding, record.version);
    if (turn.closed) return 'missed';
    if (written === 'conflict') return takenMeanwhile;
    this.#held = { era: era.era, version: written };
    return { confirmedUnder: era.era };
  }

  /** A confirming write sent at `sentAt` published `markMs` (under `era`). */
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

  /** A cached start's `claimed` entry, late, at the start's time; tried again until it lands. */
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

  async #journal(
    event: LeaseJournalEntry['event'],
    fields: Partial<Pick<LeaseJournalEntry, 'atMs' | 'floorMarkMs' | 'markMs'>>,
  ): Promise<void> {
    const { claimant, options } = this.#start;
    await (this.#verbs.journal ?? this.#start.journal)?.append({
      event,
      machineId: this.machineId,
      holder: claimant.key,
      instance: claimant.instance,
      atMs: options.clock(),
      ...fields,
    });
  }

  /** The id is no longer this instance's: issuing stops for good. */
  #lose(loss: HoldLoss): void {
    const why =
      loss.lost === 'era'
        ? `${this.#start.coordinator} lost its data (the allocation era it was leased under is gone)`
        : loss.lost === 'other'
          ? loss.why
          : loss.owner === null
            ? 'now released'
            : `now owned by ${loss.owner}`;
    const details = loss.lost === 'other' ? {} : { owner: loss.lost === 'era' ? null : loss.owner };
    this.#lost = new VestaError(
      'MACHINE_ID_LEASE_LOST',
      `machine id ${this.machineId} is no longer held by this instance (${this.key}): ${why}. Issuing stopped for good: restart to get a new id`,
      { details: { machineId: this.machineId, ...details } },
    );
    this.#start.options.logger.error(
      { machineId: this.machineId, key: this.key, ...details },
      this.#lost.message,
    );
    this.#loop.stop();
    if (this.#verbs.closeOnLoss === true) this.#close();
  }

  /** Closes the connection without waiting (a failure changes nothing then). */
  #close(): void {
    void Promise.resolve(this.#verbs.close()).catch(() => undefined);
  }

  #abandon(): void {
    this.#closed = true;
    this.#lost = new VestaError(
      'MACHINE_ID_LEASE_LOST',
      `machine id ${this.machineId}: the lease was abandoned`,
    );
    this.#loop.stop();
    this.#close();
  }

  async #renew(run: RenewalRun): Promise<void> {
    if (this.#closed || this.#lost !== undefined) return;
    let sent: { markMs: number; sentAt: number } | undefined;
    // Closed for this turn too once the loop gave up on it: it sends nothing more.
    const closed = (): boolean => this.#closed || run.abandoned;
    const fence = this.#fence;
    const told = (): number => this.#toldMs;
    const clock = this.#start.options.clock;
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
        get markStandsMs() {
          return told() > fence.markMs ? 0 : Math.max(0, fence.markMs - clock());
        },
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
    const fenced = this.#fence.fenced;
    const { logger } = this.#start.options;
    if (fenced && !this.#fenced) {
      logger.error(
        { machineId: this.machineId, fenceAfterMs: this.#fence.fenceAfterMs },
        `machine id lease not confirmed by ${this.#start.coordinator} in time: issuing is paused`,
      );
    } else if (!fenced && this.#fenced) {
      logger.warn(
        { machineId: this.machineId },
        'machine id lease confirmed again: issuing resumes',
      );
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

/** What a run of a {@link RenewalLoop} reads while it runs. */
export interface RenewalRun {
  /** True once the loop gave up on this run: it must send nothing more. */
  readonly abandoned: boolean;
}

/**
 * The turns a run may stay busy for before the loop gives up on it: a turn due while the run is
 * busy is skipped (a slow coordinator never piles up writes), the next one abandons it and runs
 * at once (a request that hangs costs two turns at most, never the fence).
 */
export const ABANDON_AFTER_TURNS = 2;

/** A renewal loop (see {@link renewalLoop}). */
export interface RenewalLoop {
  /** Turns that fell due so far, including those skipped while a run was busy. */
  readonly turns: number;
  /** Stops for good; runs in progress complete (see `settled`). */
  stop(): void;
  /** Resolves once no run is in progress; never rejects. */
  settled(): Promise<void>;
}

/**
 * Runs `renew` every `intervalMs`, one run at a time (see {@link ABANDON_AFTER_TURNS}); an
 * abandoned run calls `abandoned`. The timers are unref'd.
 */
export function renewalLoop(
  time: TimeSource,
  intervalMs: number,
  renew: (run: RenewalRun) => Promise<void>,
  abandoned: () => void = () => undefined,
): RenewalLoop {
  let timer: TimerHandle | undefined;
  let running: { abandoned: boolean; overdue: number } | undefined;
  // Every run not settled yet (an abandoned run may still be on its way).
  const unsettled = new Set<Promise<void>>();
  let stopped = false;
  let turns = 0;
  const due = (): void => {
    if (stopped) return;
    timer = time.setTimer(due, intervalMs).unref();
    turns++;
    if (running !== undefined) {
      running.overdue++;
      if (running.overdue < ABANDON_AFTER_TURNS) return;
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
    get turns() {
      return turns;
    },
    stop: () => {
      stopped = true;
      timer?.cancel();
    },
    settled: async () => {
      await Promise.all(unsettled);
    },
  };
}

/** What {@link enterLeaseEra} tells while it enters the era. */
export interface LeaseEraHooks {
  readonly onCreated?: (era: string) => void;
  /** About to wait `waitMs` before it may open the closed era `era`; told once. */
  readonly onWait?: (era: string, waitMs: number) => void;
}

/** The era wait's one log line, before it waits, so that a first start does not look hung. */
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
 * The store's allocation era once it is open. A store without one is new, or lost its data
 * while instances may still hold ids of it: the era is created closed, and nobody takes an id
 * until `waitMs` (monotonic) has passed since this start first saw it missing or closed, by when
 * every holder of lost data has fenced itself. Another closed era (lost again) starts it over.
 */
export async function enterLeaseEra<E extends LeaseEraState>(
  store: LeaseEraStore<E>,
  waitMs: number,
  time: TimeSource,
  hooks: LeaseEraHooks = {},
): Promise<E> {
  let closedEra: string | undefined;
  let since: number | undefined;
  let told = false;
  for (;;) {
    const found = await store.readEra();
    // Stamped on the answer: the store may have lost its data while the read was on its way.
    const seenAt = time.monotonic();
    if (found?.open === true) return found;
    const replaced = closedEra !== undefined && found !== undefined && found.era !== closedEra;
    if (since === undefined || replaced) since = seenAt;
    if (found === undefined) {
      const era = randomUUID();
      if (await store.createEra(era)) hooks.onCreated?.(era);
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
    await store.openEra(found);
  }
}
