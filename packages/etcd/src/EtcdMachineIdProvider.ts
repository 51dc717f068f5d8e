import type { MachineIdProvider, MachineIdRequest } from '@vesta/core';
import {
  enterLeaseEra,
  holdingOf,
  LeaseClaimer,
  snapshotOfRows,
  type ClaimRoundState,
  type ClaimSnapshot,
  type LeaseClaimant,
  type LeaseClaimRound,
  type LeaseClaimStats,
  type LeaseEraStore,
  type LeaseOpening,
  eraWaitLog,
} from '@vesta/lease';
import { EtcdMachineIdLease } from './EtcdMachineIdLease.js';
import {
  resolveEtcdMachineIdOptions,
  type EtcdMachineIdOptions,
  type ResolvedEtcdMachineIdOptions,
} from './EtcdMachineIdOptions.js';
import {
  EtcdStore,
  isLeaseExpired,
  liveTtlMs,
  type EtcdEra,
  type EtcdIdRow,
  type HeldLeases,
} from './etcd/EtcdStore.js';
import { etcdEraStore } from './etcd/etcdEraStore.js';
import { keepLeases } from './etcd/keepLeases.js';

/** What this provider's acquisitions did: a read-only snapshot (metrics, figures). */
export type EtcdMachineIdStats = LeaseClaimStats;

/**
 * Leases machine ids from etcd: unique among live instances (a live key under the holder's etcd
 * lease, claimed in a transaction only while absent), the same id for the same key across
 * restarts, dead owners' ids reclaimed once etcd has expired their reclaim lease, time marks
 * carried over, and no id handed out from an etcd that lost its keys before every holder of the
 * lost keys has fenced itself. See the package README.
 *
 * @example
 * const ids = await createEmbeddedIdService({
 *   machineIdProvider: new EtcdMachineIdProvider({ endpoints: 'etcd1:2379,etcd2:2379', key: 'orders-7' }),
 * });
 */
export class EtcdMachineIdProvider implements MachineIdProvider {
  readonly #options: ResolvedEtcdMachineIdOptions;
  readonly #claimer: LeaseClaimer;

  /** Validates the options (INVALID_OPTIONS); connects only on {@link acquire}. */
  constructor(options: EtcdMachineIdOptions) {
    const o = resolveEtcdMachineIdOptions(options);
    this.#options = o;
    this.#claimer = new LeaseClaimer({
      options: o,
      files: 'etcd',
      coordinator: 'etcd',
      address: o.endpoints.join(','),
      root: o.root,
    });
  }

  /** What this provider's acquisitions did so far (a frozen snapshot). */
  get stats(): EtcdMachineIdStats {
    return this.#claimer.stats;
  }

  /**
   * The store round trips this provider's claims cost so far: each claim round's read and each
   * claim write (connecting, the clock check and the era are outside the count).
   */
  get roundTrips(): number {
    return this.#claimer.roundTrips;
  }

  async acquire(request: MachineIdRequest): Promise<EtcdMachineIdLease> {
    const c = this.#claimer.claimant(request);
    const store = new EtcdStore(this.#options);
    let eras: LeaseEraStore<EtcdEra>;
    try {
      eras = etcdEraStore(store, await store.readEra());
    } catch (cause) {
      return this.#claimer.startFromCache(
        c,
        cause,
        () => store.close(),
        (cached, opening, holder) => this.#lease(store, holder, opening, { cachedEra: cached.era }),
      );
    }
    // The etcd leases of this acquisition, granted by the first claim write, kept alive by each
    // round that claims and, while rounds run, on a timer: a claim write under an expired lease is
    // refused, and a round may outlast a short lease when a whole fleet starts at once.
    const held: { leases?: HeldLeases } = {};
    const keeping = setInterval(
      () => {
        const { live, recent } = held.leases ?? {};
        if (live !== undefined && recent !== undefined) {
          store.keepAliveAll([live, recent]).catch(() => undefined);
        }
      },
      liveTtlMs(this.#options.fenceAfterMs) / 4,
    );
    keeping.unref();
    try {
      const pollMs = Math.min(250, Math.max(10, this.#options.refreshIntervalMs / 2));
      return await this.#claimer.claim(c, pollMs, (state) =>
        this.#round(store, eras, c, held, state),
      );
    } catch (error) {
      const { live, recent } = held.leases ?? {};
      await Promise.all([live, recent].map((l) => l && store.revoke(l))).catch(() => undefined);
      store.close();
      throw this.#claimer.failure(error);
    } finally {
      clearInterval(keeping);
    }
  }

  /**
   * One claim round: the open era, the ids, and how to claim one. The acquisition's etcd leases
   * are granted (or kept alive) when the round first writes a claim: a start that finds no id free
   * grants none, and a lease is used as soon as granted, however long the fleet's reads take.
   */
  async #round(
    store: EtcdStore,
    eras: LeaseEraStore<EtcdEra>,
    c: LeaseClaimant,
    held: { leases?: HeldLeases },
    state: ClaimRoundState,
  ): Promise<LeaseClaimRound<EtcdMachineIdLease>> {
    const o = this.#options;
    const era = await enterLeaseEra(
      eras,
      o.eraWaitMs,
      o.time,
      eraWaitLog(o.logger, 'etcd', { root: o.root }),
    );
    const rows = await store.readIds();
    const byId = new Map(rows.map((r) => [r.machineId, r]));
    let kept: Promise<HeldLeases> | undefined;
    const leases = (): Promise<HeldLeases> =>
      (kept ??= keepLeases(store, held.leases, o)
        .catch((error: unknown) => {
          // Keeping them alive failed (a busy etcd refuses keep-alives it cannot answer in time):
          // they hold no key yet (no claim of this acquisition won), so new ones serve as well.
          if (held.leases === undefined) throw error;
          return keepLeases(store, undefined, o);
        })
        .then((l) => (held.leases = l)));
    return {
      snapshot: this.#snapshot(c, rows, state),
      take: (candidate) => {
        const row = byId.get(candidate.machineId);
        let under: HeldLeases | undefined;
        return this.#claimer.takeWithFence({
          machineId: candidate.machineId,
          floorMarkMs: row?.data?.markMs ?? 0,
          type: c.request.type,
          write: async (markMs) => {
            const claim = async (): Promise<string | undefined> => {
              under = await leases();
              return store.claim(
                era,
                candidate.machineId,
                row?.modRevision,
                candidate.kind === 'reclaimed',
                holdingOf(c, markMs),
                under,
                c.instance,
              );
            };
            try {
              return await claim();
            } catch (error) {
              // etcd expired a lease before the claim reached it (a fleet's round outlasted it):
              // the transaction wrote nothing. Once more, under leases kept alive or granted anew.
              if (!isLeaseExpired(error)) throw error;
              kept = undefined;
              return claim();
            }
          },
          lease: (written, opening) =>
            this.#lease(store, c, opening, { era, written, leases: under }),
        });
      },
    };
  }

  /**
   * The claim snapshot of the rows read. etcd tells no ages, only whether the reclaim lease of an
   * id has expired: an id without it counts as idle past the delay, one with it as just used.
   */
  #snapshot(c: LeaseClaimant, rows: readonly EtcdIdRow[], state: ClaimRoundState): ClaimSnapshot {
    const { reclaimAfterMs } = this.#options;
    const ownId = c.stableKey
      ? rows
          .filter((r) => r.mayName(c.key) && r.data?.owner === c.key)
          .sort((a, b) => Number(BigInt(b.modRevision) - BigInt(a.modRevision)))[0]?.machineId
      : undefined;
    const claimRows = rows.map((r) => ({
      machineId: r.machineId,
      live: r.live,
      // A live id's owner is never planned on (and its record stays undecoded).
      owner: r.live ? undefined : r.data?.owner,
      idleMs: r.recent ? 0 : reclaimAfterMs + 1,
    }));
    return snapshotOfRows(claimRows, { ...state, range: c.request.range, reclaimAfterMs, ownId });
  }

  #lease(
    store: EtcdStore,
    c: LeaseClaimant,
    opening: LeaseOpening,
    held: {
      era?: EtcdEra;
      cachedEra?: string | undefined;
      written?: string;
      leases?: HeldLeases | undefined;
    },
  ): EtcdMachineIdLease {
    return new EtcdMachineIdLease({
      ...opening,
      store,
      options: this.#options,
      cache: this.#claimer.cache,
      claimant: c,
      era: held.era,
      cachedEra: held.cachedEra,
      written: held.written,
      leases: held.leases,
    });
  }
}
