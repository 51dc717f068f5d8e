import { VestaError, type MachineIdProvider, type MachineIdRequest } from '@vesta/core';
import { CoordinatorLease } from './CoordinatorLease.js';
import { enterLeaseEra, type LeaseEraState } from './enterLeaseEra.js';
import { eraWaitLog } from './eraWaitLog.js';
import {
  LeaseClaimer,
  type ClaimRoundState,
  type LeaseClaimant,
  type LeaseClaimOptions,
  type LeaseClaimRound,
  type LeaseClaimStats,
  type LeaseOpening,
} from './LeaseClaimer.js';
import type { LeaseJournalEntry } from './LeaseJournal.js';
import type { ResolvedLeaseOptions } from './LeaseOptions.js';
import type { LeaseSession, LeaseStartFrom, LeaseStore } from './LeaseStore.js';

/** The options a provider reads: the claimer's, the era wait and the renewal interval. */
export type LeaseProviderOptions = LeaseClaimOptions &
  Pick<ResolvedLeaseOptions, 'eraWaitMs' | 'refreshIntervalMs'>;

/**
 * Leases machine ids from a coordinator's store, the same way for every store: connect (or, when
 * the store is unreachable and the store and options allow it, start on the state dir's cached
 * lease), check the clock, then rounds of entering the open allocation era, reading the range,
 * planning and claiming with a fenced first mark (see {@link LeaseClaimer}) until a claim wins or
 * the range is full; then the {@link CoordinatorLease} on the claim's {@link LeaseHold}. A
 * coordinator package is its {@link LeaseStore} and its options; its provider class extends
 * this one.
 */
export class LeaseProvider<
  E extends LeaseEraState = LeaseEraState,
  W = unknown,
> implements MachineIdProvider {
  readonly #store: LeaseStore<E, W>;
  readonly #options: LeaseProviderOptions;
  readonly #claimer: LeaseClaimer;

  constructor(store: LeaseStore<E, W>, options: LeaseProviderOptions) {
    this.#store = store;
    this.#options = options;
    this.#claimer = new LeaseClaimer({
      options,
      files: store.files,
      coordinator: store.coordinator,
      address: store.address,
      root: store.root,
      ...(store.unavailable === undefined ? {} : { unavailable: store.unavailable }),
    });
  }

  /** What this provider's acquisitions did so far (a frozen snapshot). */
  get stats(): LeaseClaimStats {
    return this.#claimer.stats;
  }

  /**
   * The store round trips this provider's claims cost so far: each claim round's read and each
   * claim write (connecting, the clock check and the era are outside the count).
   */
  get roundTrips(): number {
    return this.#claimer.roundTrips;
  }

  async acquire(request: MachineIdRequest): Promise<CoordinatorLease> {
    const store = this.#store;
    const claimer = this.#claimer;
    const c = claimer.claimant(request);
    const session = store.open(c);
    try {
      await session.connect(claimer);
    } catch (cause) {
      if (!store.startsFromCache || VestaError.is(cause, 'CLOCK_OUT_OF_SYNC')) {
        await session.close();
        throw claimer.failure(cause);
      }
      return claimer.startFromCache(
        c,
        cause,
        () => session.close(),
        (cached, opening, holder) => this.#lease(session, holder, opening, { cached }),
      );
    }
    try {
      await session.prepare(claimer);
      return await claimer
        .claim(c, store.pollMs, (state) => this.#round(session, c, state))
        // Won or failed, the claim is over (before a failure closes the session: nothing of the
        // claim may write meanwhile).
        .finally(() => session.claimEnded?.());
    } catch (error) {
      await session.close();
      throw claimer.failure(error);
    }
  }

  /** One claim round: the open era, what the store reads of the range, how to claim a candidate. */
  async #round(
    session: LeaseSession<E, W>,
    c: LeaseClaimant,
    state: ClaimRoundState,
  ): Promise<LeaseClaimRound<CoordinatorLease>> {
    const o = this.#options;
    const store = this.#store;
    // Every round enters the era anew: a claim that lost to a data loss waits for the new era.
    const era = await enterLeaseEra(
      session.era,
      o.eraWaitMs,
      o.time,
      eraWaitLog(o.logger, store.coordinator, store.eraLogFields),
    );
    const round = await session.readRound(state, era);
    const { journal } = session;
    return {
      snapshot: round.snapshot,
      ...(round.reads === undefined ? {} : { reads: round.reads }),
      take: (candidate) => {
        const { machineId } = candidate;
        const floorMarkMs = round.floorMarkMs(candidate);
        return this.#claimer.takeWithFence({
          machineId,
          floorMarkMs,
          type: c.request.type,
          write: async (markMs) => {
            // Stamped when it is written: with the claim (a store that journals its claims), or
            // once the claim won.
            const claimed = (): LeaseJournalEntry => ({
              event: 'claimed',
              machineId,
              holder: c.key,
              instance: c.instance,
              atMs: o.clock(),
              floorMarkMs,
            });
            const written = await round.write(candidate, markMs, claimed());
            // Journaled before any lease exists: no id is issued without its `claimed` entry. A
            // failure fails the start as a failed write would (the claim is left to expire).
            if (written !== undefined && session.journalsClaims !== true) {
              await journal.append(claimed());
            }
            return written;
          },
          lease: (written, opening) =>
            this.#lease(session, c, opening, { claimed: { era, written } }),
        });
      },
    };
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
        options: this.#options,
        root: store.root,
        claimant: c,
        ...('claimed' in from
          ? { era: from.claimed.era.era, confirmed: true }
          : { era: from.cached.era, confirmed: false }),
      },
      session.hold(opening, from),
    );
  }
}
