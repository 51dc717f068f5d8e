import {
  holdingOf,
  LeaseProvider,
  snapshotOfRows,
  type ClaimRoundState,
  type ClaimSnapshot,
  type LeaseClaimant,
  type LeaseEraStore,
  type LeaseStore,
} from '@vesta/lease';
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
import { etcdHold } from './etcd/etcdHold.js';
import { etcdJournal } from './etcd/etcdJournal.js';
import { keepLeases } from './etcd/keepLeases.js';

/**
 * The claim snapshot of the rows read. etcd tells no ages, only whether the reclaim lease of an
 * id has expired: an id without it counts as idle past the delay, one with it as just used.
 */
function snapshotOf(
  reclaimAfterMs: number,
  c: LeaseClaimant,
  rows: readonly EtcdIdRow[],
  state: ClaimRoundState,
): ClaimSnapshot {
  const ownId = c.stableKey
    ? rows
        .filter((r) => r.mayName(c.key) && r.data?.owner === c.key)
        .sort((a, b) => Number(BigInt(b.modRevision) - BigInt(a.modRevision)))[0]?.machineId
    : undefined;
  const claimRows = rows.map((r) => ({
    machineId: r.machineId,
    live: r.live,
    owner: r.live ? undefined : r.data?.owner,
    idleMs: r.recent ? 0 : reclaimAfterMs + 1,
  }));
  return snapshotOfRows(claimRows, { ...state, range: c.request.range, reclaimAfterMs, ownId });
}

/** A claim written: the record's new mod revision, and the etcd leases it was written under. */
interface EtcdClaim {
  readonly revision: string;
  readonly leases: HeldLeases;
}

/**
 * etcd as a lease store: a start holds two etcd leases (the live key's and the reclaim delay's),
 * granted by its first claim write (a start that finds the range full grants none) and kept alive
 * on a timer while its rounds run; a round is one range read, a claim one transaction that
 * requires the era and the record's revision and puts the live key under the start's lease, and
 * the claim's journal entry with it. The first request, made to learn that etcd answers, reads
 * the era key (see etcdEraStore) and, in the same transaction, the rows of the first round.
 */
function etcdStore(o: ResolvedEtcdMachineIdOptions): LeaseStore<EtcdEra, EtcdClaim> {
  return {
    coordinator: 'etcd',
    files: 'etcd',
    address: o.endpoints.join(','),
    root: o.root,
    eraLogFields: { root: o.root },
    pollMs: Math.min(250, Math.max(10, o.refreshIntervalMs / 2)),
    startsFromCache: true,
    open() {
      const store = new EtcdStore(o);
      let eras: LeaseEraStore<EtcdEra> | undefined;
      let held: HeldLeases | undefined;
      let keeping: NodeJS.Timeout | undefined;
      const journal = etcdJournal(store, o.journalRetention);
      /** The rows read with the era on connecting, for the first round (the era was open). */
      let firstRows: EtcdIdRow[] | undefined;
      return {
        connect: async () => {
          const first = await store.readEraAndIds();
          eras = etcdEraStore(store, first.era);
          // Read before an era is created or opened (and its wait), they would plan on a store
          // the wait may have changed: the first round then reads again.
          if (first.era?.open === true) firstRows = first.ids;
        },
        prepare: async () => {
          keeping = setInterval(
            () => {
              if (held !== undefined) {
                store.keepAliveAll([held.live, held.recent]).catch(() => undefined);
              }
            },
            liveTtlMs(o.fenceAfterMs) / 4,
          );
          keeping.unref();
        },
        get era(): LeaseEraStore<EtcdEra> {
          if (eras === undefined) throw new Error('etcd is read before its era');
          return eras;
        },
        journal,
        // A claim's entry is put in the claim's own transaction: no request of its own.
        journalsClaims: true,
        readRound: async (c, state, era) => {
          const rows = firstRows ?? (await store.readIds());
          firstRows = undefined;
          const byId = new Map(rows.map((r) => [r.machineId, r]));
          // The leases are granted (or kept alive) when the round first writes a claim.
          let kept: Promise<HeldLeases> | undefined;
          const leases = (): Promise<HeldLeases> =>
            (kept ??= keepLeases(store, held, o)
              .catch((error: unknown) => {
                // Keeping them alive failed (a busy etcd refuses keep-alives it cannot answer in
                // time): they hold no key yet (no claim of this start won), so new ones serve.
                if (held === undefined) throw error;
                return keepLeases(store, undefined, o);
              })
              .then((l) => (held = l)));
          return {
            snapshot: snapshotOf(o.reclaimAfterMs, c, rows, state),
            floorMarkMs: ({ machineId }) => byId.get(machineId)?.data?.markMs ?? 0,
            write: async (candidate, markMs, claimed) => {
              const claim = async (): Promise<EtcdClaim | undefined> => {
                const under = await leases();
                const written = await store.claim(
                  era,
                  candidate.machineId,
                  byId.get(candidate.machineId)?.modRevision,
                  candidate.kind === 'reclaimed',
                  holdingOf(c, markMs),
                  under,
                  c.instance,
                  journal.appendOps(claimed),
                );
                if (written === undefined) return undefined;
                await journal.appended(written.responses.at(-1), written.revision);
                return { revision: written.revision, leases: under };
              };
              try {
                return await claim();
              } catch (error) {
                // etcd expired a lease before the claim reached it (a fleet's round outlasted
                // it): the transaction wrote nothing. Once more, under leases kept or granted anew.
                if (!isLeaseExpired(error)) throw error;
                kept = undefined;
                return claim();
              }
            },
          };
        },
        hold: (claimant, { machineId, floorMarkMs }, from) =>
          etcdHold({
            store,
            options: o,
            claimant,
            machineId,
            floorMarkMs,
            ...('claimed' in from
              ? {
                  era: from.claimed.era,
                  written: from.claimed.written.revision,
                  leases: from.claimed.written.leases,
                }
              : { era: undefined, written: undefined, leases: undefined }),
          }),
        claimEnded: () => clearInterval(keeping),
        close: async () => {
          const leases = held === undefined ? [] : [held.live, held.recent];
          await Promise.all(leases.map((l) => store.revoke(l))).catch(() => undefined);
          store.close();
        },
      };
    },
  };
}

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
export class EtcdMachineIdProvider extends LeaseProvider<EtcdEra, EtcdClaim> {
  /** Validates the options (INVALID_OPTIONS); connects only on {@link acquire}. */
  constructor(options: EtcdMachineIdOptions) {
    const o = resolveEtcdMachineIdOptions(options);
    super(etcdStore(o), o);
  }
}
