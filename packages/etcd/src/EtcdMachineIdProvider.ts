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
  EtcdNamespace,
  isLeaseExpired,
  liveTtlMs,
  type EtcdEra,
  type EtcdIdRow,
  type HeldLeases,
} from './etcd/EtcdNamespace.js';
import { etcdEraStore } from './etcd/etcdEraStore.js';
import { etcdHold } from './etcd/etcdHold.js';
import { etcdJournal } from './etcd/etcdJournal.js';
import { idWindows, type IdWindow } from './etcd/idWindows.js';
import { keepLeases } from './etcd/keepLeases.js';

/**
 * `id` when in `c`'s range, else undefined: an id of the key outside it (held under a wider range
 * before a restart) is no own id, as the plan ignores it: taken as one, it would stand for the
 * window's fresh ids and stop the read of every id when there is none.
 */
function inRangeOf(c: LeaseClaimant, id: number | undefined): number | undefined {
  const { min, max } = c.request.range;
  return id !== undefined && id >= min && id <= max ? id : undefined;
}

/**
 * The id in `c`'s range whose record names `c`'s key and was written last, among `rows` (a scan
 * of every record).
 */
function ownIdOf(c: LeaseClaimant, rows: readonly EtcdIdRow[]): number | undefined {
  return rows
    .filter(
      (r) => inRangeOf(c, r.machineId) !== undefined && r.mayName(c.key) && r.data?.owner === c.key,
    )
    .sort((a, b) => Number(BigInt(b.modRevision) - BigInt(a.modRevision)))[0]?.machineId;
}

/** Whether a round may take `row`'s id as a fresh one: no record (never used), or released. */
function isFresh(row: EtcdIdRow | undefined): boolean {
  return row === undefined || (!row.live && row.data !== undefined && row.data.owner === null);
}

/**
 * The claim snapshot of the rows read. etcd tells no ages, only whether the reclaim lease of an
 * id has expired: an id without it counts as idle past the delay, one with it as just used. With
 * `only` (a window's read), every id of the range but those is left out of the plan (skipped).
 */
function snapshotOf(
  reclaimAfterMs: number,
  c: LeaseClaimant,
  rows: readonly EtcdIdRow[],
  state: ClaimRoundState,
  ownId: number | undefined,
  only?: ReadonlySet<number>,
): ClaimSnapshot {
  const claimRows = rows.map((r) => ({
    machineId: r.machineId,
    live: r.live,
    owner: r.live ? undefined : r.data?.owner,
    idleMs: r.recent ? 0 : reclaimAfterMs + 1,
  }));
  let skip = state.skip;
  if (only !== undefined) {
    const { min, max } = c.request.range;
    const left = new Set(skip);
    for (let id = min; id <= max; id++) if (!only.has(id) && id !== ownId) left.add(id);
    skip = left;
  }
  const { ownerWaitOver } = state;
  return snapshotOfRows(claimRows, {
    skip,
    ownerWaitOver,
    range: c.request.range,
    reclaimAfterMs,
    ownId,
  });
}

/** A claim written: the record's new mod revision, and the etcd leases it was written under. */
interface EtcdClaim {
  readonly revision: string;
  readonly leases: HeldLeases;
}

/**
 * etcd as a lease store: a start holds two etcd leases (the live key's and the reclaim delay's),
 * granted by its first claim write (a start that finds the range full grants none) and kept alive
 * on a timer while its rounds run; a claim is one transaction that requires the era and the
 * record's revision and puts the live key under the start's lease, the key's owner index entry
 * and the claim's journal entry with it. A round reads a window of the ids (see idWindows) picked
 * at random, with the id the owner index names for the key, and reads every id only when the
 * window holds no free id (the range may be full, or only dead owners' ids be left) or the era's
 * index is not whole and the key has no entry. The first request, made to learn that etcd
 * answers, reads the era key (see etcdEraStore), the key's index entry and the first round's
 * window in one transaction.
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
    open(c) {
      const store = new EtcdNamespace(o);
      let eras: LeaseEraStore<EtcdEra> | undefined;
      let held: HeldLeases | undefined;
      let keeping: NodeJS.Timeout | undefined;
      const journal = etcdJournal(store, o.journalRetention);
      const windows = idWindows(c.request.range);
      const pick = (): IdWindow => windows[Math.floor(Math.random() * windows.length)] as IdWindow;
      /** The id the owner index named for the key (a stable key's only, in its range), once read. */
      let indexed: number | undefined;
      /** A scan of every record found the key's id (undefined: none), in an era not indexed. */
      let scanned: { readonly ownId: number | undefined } | undefined;
      /**
       * The first round's read, made with the era's (on connecting, or in the transaction that
       * opened it) while the era was open: its window, the single ids read with it, the rows.
       */
      let first:
        | { readonly window: IdWindow; readonly ids: readonly number[]; readonly rows: EtcdIdRow[] }
        | undefined;
      /** The window to read, and the key's own id when outside it. */
      const query = () => {
        const window = pick();
        const own = c.stableKey ? (scanned?.ownId ?? indexed) : undefined;
        return { window, ids: own !== undefined && !window.ids.has(own) ? [own] : [] };
      };
      return {
        connect: async () => {
          const window = pick();
          const read = await store.onAnyMember(() =>
            store.read({ era: true, ...(c.stableKey ? { indexOf: c.key } : {}), window }),
          );
          indexed = inRangeOf(c, read.indexed);
          // Read before an era is created or opened (and its wait), they would plan on a store
          // the wait may have changed: the first round then reads again, unless the transaction
          // that opens the era reads it.
          if (read.era?.open === true) first = { window, ids: [], rows: read.rows };
          let opening: ReturnType<typeof query> | undefined;
          eras = etcdEraStore(store, read.era, {
            query: () => (opening = query()),
            read: ({ rows }) => {
              if (opening !== undefined) first = { ...opening, rows };
            },
          });
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
        readRound: async (round, era) => {
          let reads = 1;
          const named = c.stableKey ? (scanned?.ownId ?? indexed) : undefined;
          let window: IdWindow;
          let rows: EtcdIdRow[];
          if (first === undefined) {
            const q = query();
            window = q.window;
            rows = (await store.read(q)).rows;
          } else {
            const read = first;
            ({ window, rows } = read);
            first = undefined;
            if (named !== undefined && !window.ids.has(named) && !read.ids.includes(named)) {
              reads++;
              rows = [...rows, ...(await store.read({ ids: [named] })).rows];
            }
          }
          // Read once, now: the choice below and the plan must see the same owner wait.
          const state: ClaimRoundState = { skip: round.skip, ownerWaitOver: round.ownerWaitOver };
          let byId = new Map(rows.map((r) => [r.machineId, r]));
          const namedRow = named === undefined ? undefined : byId.get(named);
          // The index is a hint: the record decides (another start may hold the id since).
          let ownId =
            namedRow?.data?.owner === c.key && namedRow.mayName(c.key) ? named : undefined;
          const scan = c.stableKey && ownId === undefined && !era.indexed && scanned === undefined;
          const own = ownId === undefined ? undefined : byId.get(ownId);
          // The key's own id decides this round (taken, or waited for), or the window's fresh ids
          // are tried (never a dead owner's: those only once every id was read and none is
          // fresh); else every id is read, as the plan then needs the whole range.
          const ownDecides =
            own !== undefined &&
            !state.skip.has(own.machineId) &&
            (!own.live || !state.ownerWaitOver);
          let only: ReadonlySet<number> | undefined = new Set(
            [...window.ids].filter((id) => !state.skip.has(id) && isFresh(byId.get(id))),
          );
          if (scan || (!ownDecides && only.size === 0)) {
            reads++;
            rows = await store.readIds();
            byId = new Map(rows.map((r) => [r.machineId, r]));
            only = undefined;
            if (scan) {
              ownId = ownIdOf(c, rows);
              scanned = { ownId };
            } else if (ownId !== undefined) {
              const again = byId.get(ownId);
              if (again?.data?.owner !== c.key) ownId = undefined;
            }
          }
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
            snapshot: snapshotOf(o.reclaimAfterMs, c, rows, state, ownId, only),
            reads,
            floorMarkMs: ({ machineId }) => byId.get(machineId)?.data?.markMs ?? 0,
            write: async (candidate, markMs, claimed) => {
              const { machineId } = candidate;
              const claim = async (): Promise<EtcdClaim | undefined> => {
                const under = await leases();
                const written = await store.claim(
                  era,
                  machineId,
                  byId.get(machineId)?.modRevision,
                  candidate.kind === 'reclaimed',
                  holdingOf(c, markMs),
                  under,
                  c.instance,
                  // The journal's count last: its answer is the transaction's last.
                  [
                    ...(c.stableKey ? [store.indexOp(c.key, machineId)] : []),
                    ...journal.appendOps(claimed),
                  ],
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
        hold: ({ machineId, floorMarkMs }, from) =>
          etcdHold({
            store,
            options: o,
            claimant: c,
            machineId,
            floorMarkMs,
            claimed:
              'claimed' in from
                ? {
                    era: from.claimed.era,
                    revision: from.claimed.written.revision,
                    leases: from.claimed.written.leases,
                  }
                : undefined,
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
