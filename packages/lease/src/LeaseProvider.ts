import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  VestaError,
  type MachineIdProvider,
  type MachineIdRange,
  type MachineIdRequest,
  type VestaErrorCode,
} from '@vesta/core';
import { sleepOn } from '@vesta/core/kit';
import { cachedLeaseFallback } from './cachedLeaseFallback.js';
import { clockBehindMark } from './clockBehindMark.js';
import { CoordinatorLease } from './CoordinatorLease.js';
import { enterLeaseEra, type LeaseEraState } from './enterLeaseEra.js';
import { eraWaitLog } from './eraWaitLog.js';
import { LeaseCache } from './LeaseCache.js';
import { LeaseFence } from './LeaseFence.js';
import type { LeaseJournalEntry } from './LeaseJournal.js';
import type { ResolvedLeaseOptions } from './LeaseOptions.js';
import type {
  ClaimRoundState,
  CoordinatorClock,
  LeaseClaimant,
  LeaseOpening,
  LeaseSession,
  LeaseStartFrom,
  LeaseStore,
  StoreRound,
} from './LeaseStore.js';
import { leaseUnitMs } from './leaseUnitMs.js';
import { planLeaseClaim, type ClaimCandidate, type ClaimKind } from './planLeaseClaim.js';

/** Rounds a start may lose to concurrent starts before it gives up. */
const MAX_ROUNDS = 50;

/**
 * Claims a round tries before it reads again: after that many lost races its snapshot is stale
 * (a fleet is starting), and a fresh read costs one round trip where trying on could cost one per
 * id taken since.
 */
const TRIES_PER_ROUND = 3;

/** What a provider's acquisitions did: a read-only snapshot (metrics, figures). */
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

/**
 * The options a provider reads (every coordinator's resolved options have them);
 * `fallbackToCache` may be missing (a store that never starts on a cached lease).
 */
export type LeaseProviderOptions = Pick<
  ResolvedLeaseOptions,
  | 'key'
  | 'stateDir'
  | 'time'
  | 'clock'
  | 'logger'
  | 'fenceAfterMs'
  | 'reclaimAfterMs'
  | 'ownerWaitMs'
  | 'maxClockSkewMs'
  | 'maxClockWaitMs'
  | 'eraWaitMs'
  | 'refreshIntervalMs'
> &
  Partial<Pick<ResolvedLeaseOptions, 'fallbackToCache'>> & {
    /** Orders the free ids a round tries (see planLeaseClaim). @default Math.random */
    readonly random?: () => number;
  };

/**
 * Leases machine ids from a coordinator's store, the same way for every store. The store (a
 * {@link LeaseStore}) offers data verbs; this engine owns the policy:
 * - connect, or, when the store is unreachable and the store and options allow it, start on the
 *   state dir's cached lease ({@link cachedLeaseFallback});
 * - check this host's clock against the coordinator's;
 * - rounds of entering the open allocation era, reading the range and planning
 *   ({@link planLeaseClaim}), trying at most {@link TRIES_PER_ROUND} candidates a round, each
 *   claimed with its first mark fenced `fenceAfterMs` ahead, until a claim wins or the range is
 *   full (MACHINE_ID_EXHAUSTED);
 * - the {@link CoordinatorLease} on the claim's hold; the errors and the stats.
 * A coordinator package is its store and its options; its provider class extends this one.
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

  /**
   * The store round trips this provider's claims cost so far: each claim round's read (each
   * request of a read that takes several) and each claim write. Connecting, the clock check and
   * the era are outside the count.
   */
  get roundTrips(): number {
    return this.#roundTrips;
  }

  async acquire(request: MachineIdRequest): Promise<CoordinatorLease> {
    const store = this.#store;
    const c = this.#claimant(request);
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
      // Called on the session: a store's session may be a class whose readClock reads `this`.
      const { readClock } = session;
      const clock =
        readClock === undefined ? undefined : await this.#checkClock(() => readClock.call(session));
      return await this.#claim(session, c, clock)
        // Won or failed, the claim is over (before a failure closes the session: nothing of the
        // claim may write meanwhile).
        .finally(() => session.claimEnded?.());
    } catch (error) {
      await session.close();
      throw this.#failure(error);
    }
  }

  /**
   * Who claims for `request`: the key given, else the state dir's (both stable), else one for
   * this process only; and a fresh instance token.
   */
  #claimant(request: MachineIdRequest): LeaseClaimant {
    const { key } = this.#o;
    const stableKey = key !== undefined || this.#cache !== undefined;
    return {
      key: key ?? this.#cache?.key() ?? `${hostname()}/${process.pid}/${randomUUID()}`,
      stableKey,
      instance: randomUUID(),
      request,
    };
  }

  /**
   * Rounds of era, read, plan and claim until a claim wins: waiting (up to `ownerWaitMs`) while
   * the key's own id is still held by its previous holder, then taking another;
   * MACHINE_ID_EXHAUSTED as soon as a read shows no id left, or after losing
   * {@link MAX_ROUNDS} rounds.
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
      // Read when the round builds its snapshot (after entering the era, which may wait).
      const state: ClaimRoundState = {
        skip,
        get ownerWaitOver() {
          return o.time.monotonic() >= ownerWaitUntil;
        },
      };
      const round = await session.readRound(state, era, clock);
      this.#roundTrips += round.reads ?? 1;
      const plan = planLeaseClaim(round.snapshot, o.random ?? Math.random);
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
        this.#counted(candidate.kind);
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
        throw this.#exhausted(round.snapshot.range, round.snapshot.live.size);
      }
    }
    throw new VestaError(
      'MACHINE_ID_EXHAUSTED',
      `lost the race for a machine id ${MAX_ROUNDS} times in ${min}-${max}`,
      { details: { min, max } },
    );
  }

  /**
   * Claims `candidate` with its first mark `fenceAfterMs` ahead of both the clock and one unit
   * past the id's stored mark, journals the claim (no id is issued without its `claimed` entry),
   * and confirms the fence from the moment the write was sent; undefined when a concurrent start
   * won the id. A lease whose first id the clock cannot reach within `maxClockWaitMs` is released
   * again: CLOCK_BEHIND_HIGH_WATER_MARK.
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
    const floorMarkMs = round.floorMarkMs(candidate);
    const fence = new LeaseFence(o.time, o.fenceAfterMs);
    const sentAt = fence.sendTime();
    const notBeforeMs = floorMarkMs === 0 ? 0 : floorMarkMs + leaseUnitMs(c.request.type);
    const markMs = fence.markToPublish(notBeforeMs + o.fenceAfterMs);
    // Stamped when it is written: with the claim (a store that journals its claims), or once the
    // claim won.
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
    // A failure to journal fails the start as a failed write would (the claim is left to expire).
    if (session.journalsClaims !== true) await session.journal.append(claimed());
    fence.confirm(markMs, sentAt);
    const opening = { machineId, floorMarkMs, notBeforeMs, fence, cache: this.#cache };
    const lease = this.#lease(session, c, opening, { claimed: { era, written } });
    const gapMs = notBeforeMs - o.clock();
    if (gapMs > o.maxClockWaitMs) {
      await lease.release();
      throw clockBehindMark(
        gapMs,
        floorMarkMs,
        machineId,
        o.maxClockWaitMs,
        'the time mark stored for',
      );
    }
    return lease;
  }

  /**
   * A start while the coordinator is unreachable: on the id of the last confirmed lease in the
   * state dir, if the fallback rule allows (see {@link cachedLeaseFallback}); else the
   * coordinator's unavailable error (or CLOCK_BEHIND_HIGH_WATER_MARK), after closing the session.
   */
  async #startFromCache(
    session: LeaseSession<E, W>,
    c: LeaseClaimant,
    cause: unknown,
  ): Promise<CoordinatorLease> {
    const o = this.#o;
    let decision: ReturnType<typeof cachedLeaseFallback>;
    try {
      decision = cachedLeaseFallback({
        fallbackToCache: o.fallbackToCache ?? false,
        cache: this.#cache,
        key: c.key,
        root: this.#store.root,
        range: c.request.range,
        nowMs: o.clock(),
        unitMs: leaseUnitMs(c.request.type),
        reclaimAfterMs: o.reclaimAfterMs,
        fenceAfterMs: o.fenceAfterMs,
        maxClockSkewMs: o.maxClockSkewMs,
        maxClockWaitMs: o.maxClockWaitMs,
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
      throw clockBehindMark(
        gapMs,
        cached.markMs,
        cached.machineId,
        o.maxClockWaitMs,
        'the cached time mark of',
      );
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

  /** The lease on what `session` claimed, or on the cached id (unconfirmed), through its hold. */
  #lease(
    session: LeaseSession<E, W>,
    c: LeaseClaimant,
    opening: LeaseOpening,
    from: LeaseStartFrom<E, W>,
  ): CoordinatorLease {
    const store = this.#store;
    return new CoordinatorLease(
      {
        ...opening,
        journal: session.journal,
        coordinator: store.coordinator,
        options: this.#o,
        root: store.root,
        claimant: c,
        ...('claimed' in from
          ? { era: from.claimed.era.era, confirmed: true }
          : { era: from.cached.era, confirmed: false }),
      },
      session.hold(opening, from),
    );
  }

  /**
   * Reads the coordinator's clock with `read` and compares it with this host's at the middle of
   * the round trip: CLOCK_OUT_OF_SYNC beyond `maxClockSkewMs` (plus half the round trip). Returns
   * the coordinator's clock, extrapolated on the monotonic one.
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

  /**
   * What a failed acquisition throws: its own VestaError (a refusal counted when the range is
   * exhausted), anything else as the coordinator's unavailable error.
   */
  #failure(error: unknown): VestaError {
    if (VestaError.is(error, 'MACHINE_ID_EXHAUSTED')) this.#stats.refused++;
    if (VestaError.is(error)) return error;
    return new VestaError(
      this.#unavailable,
      `could not lease a machine id from ${this.#where}: ${String(error)}`,
      { cause: error },
    );
  }

  #counted(kind: ClaimKind): void {
    this.#stats[kind]++;
  }

  #exhausted(range: MachineIdRange, live: number): VestaError {
    const { min, max } = range;
    const { reclaimAfterMs } = this.#o;
    return new VestaError(
      'MACHINE_ID_EXHAUSTED',
      `no machine id left in ${min}-${max} in ${this.#store.root}: ${live} live, the others used within the last ${reclaimAfterMs} ms`,
      { details: { min, max, live, reclaimAfterMs } },
    );
  }
}
