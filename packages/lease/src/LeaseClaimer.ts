import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { VestaErrorCode } from '@vesta/core';
import { VestaError } from '@vesta/core';
import type { MachineIdRange } from '@vesta/core';
import type { MachineIdRequest } from '@vesta/core';
import { sleepOn } from '@vesta/core/kit';
import { cachedLeaseFallback } from './cachedLeaseFallback.js';
import { clockBehindMark } from './clockBehindMark.js';
import { LeaseCache, type CachedLease } from './LeaseCache.js';
import { LeaseFence } from './LeaseFence.js';
import type { LeaseJournal } from './LeaseJournal.js';
import type { ResolvedLeaseOptions } from './LeaseOptions.js';
import { leaseUnitMs } from './leaseUnitMs.js';
import {
  planLeaseClaim,
  type ClaimCandidate,
  type ClaimKind,
  type ClaimSnapshot,
} from './planLeaseClaim.js';

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
 * The lease options a claimer reads (every coordinator's resolved options have them);
 * `fallbackToCache` may be missing (a store that never starts on a cached lease).
 */
export type LeaseClaimOptions = Pick<
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
> &
  Partial<Pick<ResolvedLeaseOptions, 'fallbackToCache'>>;

/** Who claims: one acquisition's key and instance. */
export interface LeaseClaimant {
  readonly key: string;
  /** Whether the key outlives this process (given, or kept in the state dir). */
  readonly stableKey: boolean;
  /** This start's token: its writes name it, so a later start of the same key is told apart. */
  readonly instance: string;
  readonly request: MachineIdRequest;
}

/** A coordinator's clock as this host can tell it. */
export interface CoordinatorClock {
  /** The coordinator's clock now (Unix ms): its last reading, extrapolated on the monotonic clock. */
  at(): number;
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

/** What a claim round is told: the ids given up so far, and whether the owner wait is over. */
export type ClaimRoundState = Pick<ClaimSnapshot, 'skip' | 'ownerWaitOver'>;

/** What one round read from the coordinator, and how to claim one of its candidates. */
export interface LeaseClaimRound<L> {
  readonly snapshot: ClaimSnapshot;
  /** The requests its read took, each a round trip. @default 1 */
  readonly reads?: number;
  /** Claims `candidate`; undefined when a concurrent start won it. */
  take(candidate: ClaimCandidate): Promise<L | undefined>;
}

/** Where a lease starts: its id, mark floor and fence, for the coordinator to build it on. */
export interface LeaseOpening {
  readonly machineId: number;
  /** The mark the id carried before this start (0: none). */
  readonly floorMarkMs: number;
  /** Nothing is issued before it: one time unit past the floor. */
  readonly notBeforeMs: number;
  readonly fence: LeaseFence;
  /** The state dir's cache the lease records its confirmations in; undefined without one. */
  readonly cache: LeaseCache | undefined;
  /** The store's journal the lease appends to (its provider sets it). */
  readonly journal?: LeaseJournal;
}

/** A claim write of one candidate (see {@link LeaseClaimer.takeWithFence}). */
export interface FencedTake<W, L> {
  readonly machineId: number;
  readonly floorMarkMs: number;
  readonly type: number;
  /** Writes the claim, publishing `markMs`; undefined when a concurrent start won. */
  write(markMs: number): Promise<W | undefined>;
  /** The lease of a claim written. */
  lease(written: W, opening: LeaseOpening): L;
}

/**
 * The lease on a cached id (unconfirmed, held until the cache's validity ends), for `holder`: the
 * claimant with its key marked stable (the cache kept it).
 */
export type CachedLeaseOf<L> = (
  cached: CachedLease,
  opening: LeaseOpening,
  holder: LeaseClaimant,
) => L;

interface Releasable {
  release(): Promise<void>;
}

/**
 * The coordinator-independent half of leasing a machine id, shared by the ZooKeeper, Redis,
 * PostgreSQL and etcd providers: the instance key, rounds of read-plan-claim (see
 * {@link planLeaseClaim}), the fenced first mark of a claim, the start from the state dir's cache
 * while the coordinator is unreachable, the errors and the stats. A provider supplies its store's
 * reads and compare-and-set writes.
 */
export class LeaseClaimer {
  readonly #o: LeaseClaimOptions;
  readonly #cache: LeaseCache | undefined;
  /** The coordinator's name, e.g. `PostgreSQL`. */
  readonly #coordinator: string;
  /** The coordinator in messages, e.g. `PostgreSQL at db:5432`. */
  readonly #where: string;
  /** The allocation namespace (root, prefix, table), in messages and the cache. */
  readonly #root: string;
  readonly #unavailable: VestaErrorCode;
  readonly #stats = { fresh: 0, reused: 0, reclaimed: 0, refused: 0, fromCache: 0 };
  #roundTrips = 0;
  readonly #random: () => number;

  constructor(input: {
    readonly options: LeaseClaimOptions;
    /** Names the coordinator's files in the state dir (`postgres-key`, ...). */
    readonly files: string;
    /** Its name in messages: `ZooKeeper`, `Redis`, `PostgreSQL`, `etcd`. */
    readonly coordinator: string;
    /** Where it is, in messages: hosts and ports (no credentials). */
    readonly address: string;
    readonly root: string;
    /** The code of a coordinator that cannot be reached. @default 'COORDINATOR_UNAVAILABLE' */
    readonly unavailable?: VestaErrorCode;
    /** Orders the free ids a round tries (see planLeaseClaim). @default Math.random */
    readonly random?: () => number;
  }) {
    this.#random = input.random ?? Math.random;
    this.#o = input.options;
    const { stateDir } = input.options;
    this.#cache =
      stateDir === undefined ? undefined : new LeaseCache(stateDir, input.files, input.root);
    this.#coordinator = input.coordinator;
    this.#where = `${input.coordinator} at ${input.address}`;
    this.#root = input.root;
    this.#unavailable = input.unavailable ?? 'COORDINATOR_UNAVAILABLE';
  }

  /** The state dir's cache of the last confirmed lease; undefined without a state dir. */
  get cache(): LeaseCache | undefined {
    return this.#cache;
  }

  /** What the acquisitions did so far (a frozen snapshot). */
  get stats(): LeaseClaimStats {
    return Object.freeze({ ...this.#stats });
  }

  /**
   * The claim rounds' reads and claim writes so far, one each per round trip a claim cost: what a
   * fleet's start-up costs the coordinator. (A round's read may be one transaction or a pipelined
   * batch, each request of a read that takes several counted; connecting, the clock check and the
   * era are outside the count.)
   */
  get roundTrips(): number {
    return this.#roundTrips;
  }

  /**
   * Who claims for `request`: the key given, else the state dir's (both stable), else one for this
   * process only; and a fresh instance token.
   */
  claimant(request: MachineIdRequest): LeaseClaimant {
    const stableKey = this.#o.key !== undefined || this.#cache !== undefined;
    const key = this.#o.key ?? this.#cache?.key() ?? `${hostname()}/${process.pid}/${randomUUID()}`;
    return { key, stableKey, instance: randomUUID(), request };
  }

  /**
   * Rounds of read, plan and claim until a claim wins: waiting (up to `ownerWaitMs`) while the
   * key's own id is still held by its previous holder, then taking another; MACHINE_ID_EXHAUSTED
   * as soon as a read shows no id left, or after losing {@link MAX_ROUNDS} rounds. A round tries
   * at most {@link TRIES_PER_ROUND} candidates before it reads again. `pollMs` paces the owner wait.
   */
  async claim<L>(
    c: LeaseClaimant,
    pollMs: number,
    round: (state: ClaimRoundState) => Promise<LeaseClaimRound<L>>,
  ): Promise<L> {
    const o = this.#o;
    const { min, max } = c.request.range;
    const ownerWaitUntil = o.time.monotonic() + o.ownerWaitMs;
    const skip = new Set<number>();
    for (let n = 0; n < MAX_ROUNDS; n++) {
      // Read when the round builds its snapshot (after entering the era, which may wait).
      const state: ClaimRoundState = {
        skip,
        get ownerWaitOver() {
          return o.time.monotonic() >= ownerWaitUntil;
        },
      };
      const r = await round(state);
      this.#roundTrips += r.reads ?? 1;
      const plan = planLeaseClaim(r.snapshot, this.#random);
      if (plan.action === 'waitForOwner') {
        await sleepOn(o.time, pollMs);
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
        const lease = await r.take(candidate);
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
      if (plan.candidates.length === 0)
        throw this.#exhausted(r.snapshot.range, r.snapshot.live.size);
    }
    throw new VestaError(
      'MACHINE_ID_EXHAUSTED',
      `lost the race for a machine id ${MAX_ROUNDS} times in ${min}-${max}`,
      { details: { min, max } },
    );
  }

  /**
   * Claims one candidate with its first mark `fenceAfterMs` ahead of both the clock and one unit
   * past the id's stored mark, and confirms the fence from the moment the write was sent. A lease
   * whose first id the clock cannot reach within `maxClockWaitMs` is released again:
   * CLOCK_BEHIND_HIGH_WATER_MARK.
   */
  async takeWithFence<W, L extends Releasable>(t: FencedTake<W, L>): Promise<L | undefined> {
    const o = this.#o;
    const fence = new LeaseFence(o.time, o.fenceAfterMs);
    const sentAt = fence.sendTime();
    const notBeforeMs = t.floorMarkMs === 0 ? 0 : t.floorMarkMs + leaseUnitMs(t.type);
    const markMs = fence.markToPublish(notBeforeMs + o.fenceAfterMs);
    const written = await t.write(markMs);
    if (written === undefined) return undefined;
    fence.confirm(markMs, sentAt);
    const { machineId, floorMarkMs } = t;
    const lease = t.lease(written, {
      machineId,
      floorMarkMs,
      notBeforeMs,
      fence,
      cache: this.#cache,
    });
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
   * coordinator's unavailable error (or CLOCK_BEHIND_HIGH_WATER_MARK), after `close`.
   */
  async startFromCache<L>(
    c: LeaseClaimant,
    cause: unknown,
    close: () => unknown,
    lease: CachedLeaseOf<L>,
  ): Promise<L> {
    const o = this.#o;
    let decision: ReturnType<typeof cachedLeaseFallback>;
    try {
      decision = cachedLeaseFallback({
        fallbackToCache: o.fallbackToCache ?? false,
        cache: this.#cache,
        key: c.key,
        root: this.#root,
        range: c.request.range,
        nowMs: o.clock(),
        unitMs: leaseUnitMs(c.request.type),
        reclaimAfterMs: o.reclaimAfterMs,
        fenceAfterMs: o.fenceAfterMs,
        maxClockSkewMs: o.maxClockSkewMs,
        maxClockWaitMs: o.maxClockWaitMs,
      });
    } catch (error) {
      await close(); // the state dir could not be read
      throw error;
    }
    if (!decision.use) {
      await close();
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
    return lease(
      cached,
      { machineId, floorMarkMs, notBeforeMs, fence, cache: this.#cache },
      { ...c, stableKey: true },
    );
  }

  /**
   * What a failed acquisition throws: its own VestaError (a refusal counted when the range is
   * exhausted), anything else as the coordinator's unavailable error.
   */
  failure(error: unknown): VestaError {
    if (VestaError.is(error, 'MACHINE_ID_EXHAUSTED')) this.#stats.refused++;
    if (VestaError.is(error)) return error;
    return new VestaError(
      this.#unavailable,
      `could not lease a machine id from ${this.#where}: ${String(error)}`,
      { cause: error },
    );
  }

  /**
   * Reads the coordinator's clock with `read` (Unix ms, e.g. the time of a write) and compares it
   * with this host's at the middle of the round trip: CLOCK_OUT_OF_SYNC beyond `maxClockSkewMs`
   * (plus half the round trip). Returns the coordinator's clock, extrapolated on the monotonic one.
   */
  async checkClock(read: () => Promise<number>): Promise<CoordinatorClock> {
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
        `this host's clock is ${Math.abs(skewMs)} ms ${skewMs > 0 ? 'ahead of' : 'behind'} ${this.#coordinator}'s; more than the ${maxClockSkewMs} ms allowed`,
        { details: { skewMs, maxClockSkewMs } },
      );
    }
    const atMono = theirsMs + rttMs / 2;
    return { at: () => atMono + (time.monotonic() - mono) };
  }

  #counted(kind: ClaimKind): void {
    this.#stats[kind]++;
  }

  #exhausted(range: MachineIdRange, live: number): VestaError {
    const { min, max } = range;
    const { reclaimAfterMs } = this.#o;
    return new VestaError(
      'MACHINE_ID_EXHAUSTED',
      `no machine id left in ${min}-${max} in ${this.#root}: ${live} live, the others used within the last ${reclaimAfterMs} ms`,
      { details: { min, max, live, reclaimAfterMs } },
    );
  }
}
