import type { MachineIdRange } from '@vesta/core';
import {
  holdingOf,
  LeaseProvider,
  type ClaimRoundState,
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
import { etcdHold, type EtcdClaim } from './etcd/etcdHold.js';
import { etcdJournal } from './etcd/etcdJournal.js';

/** One window of a range's ids in etcd's key order: its keys, and the ids of the range in it. */
export interface IdWindow {
  readonly from: string;
  readonly to: string | undefined;
  readonly ids: ReadonlySet<number>;
}

/** The ids a window holds at most. */
export const WINDOW_IDS = 64;

const windowsByRange = new Map<string, readonly IdWindow[]>();

/**
 * The ids of `range` cut into windows of {@link WINDOW_IDS} or fewer, of even sizes (a smaller
 * last window would see more starts race for each of its ids), each a span of the keys
 * (`ids/1` is followed by `ids/10`): a round reads one window in one range per key kind. A
 * window's span may hold ids outside `range`, which the plan ignores.
 */
export function idWindows(range: MachineIdRange): readonly IdWindow[] {
  const cacheKey = `${range.min}-${range.max}`;
  const cached = windowsByRange.get(cacheKey);
  if (cached !== undefined) return cached;
  const keys: string[] = [];
  for (let id = range.min; id <= range.max; id++) keys.push(String(id));
  keys.sort();
  const count = Math.ceil(keys.length / WINDOW_IDS);
  const windows = Array.from({ length: count }, (_, n): IdWindow => {
    const [at, end] = [n, n + 1].map((i) => Math.round((i * keys.length) / count)) as [
      number,
      number,
    ];
    return {
      from: keys[at] as string,
      to: keys[end],
      ids: new Set(keys.slice(at, end).map(Number)),
    };
  });
  windowsByRange.set(cacheKey, windows);
  return windows;
}

/** `id` when in `c`'s range: an id of the key outside it is no own id, as the plan ignores it. */
function inRangeOf(c: LeaseClaimant, id: number | undefined): number | undefined {
  const { min, max } = c.request.range;
  return id !== undefined && id >= min && id <= max ? id : undefined;
}

/**
 * etcd as a lease store: a start holds two etcd leases (live and recent), granted by its first
 * claim write and kept alive on a timer while its rounds run; a claim is one transaction that
 * requires the era and the record's revision, puts the live key under the start's lease, and
 * writes the key's owner index entry and the claim's journal entry with it. A round reads a
 * random window of the ids with the id the owner index names for the key, and every id only
 * when the window holds no free id or the era is not indexed and the key has no entry. The first
 * request reads the era, the index entry and the first window at once; the era's creation and
 * opening each answer the next era read, the opening also reading the first round.
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
      let held: HeldLeases | undefined;
      let keeping: NodeJS.Timeout | undefined;
      const journal = etcdJournal(store, o.journalRetention);
      const windows = idWindows(c.request.range);
      const pick = (): IdWindow => windows[Math.floor(Math.random() * windows.length)] as IdWindow;
      /** The id the owner index named for the key (a stable key's, in its range). */
      let indexed: number | undefined;
      /** A scan of every record found the key's id (undefined: none), in an era not indexed. */
      let scanned: { readonly ownId: number | undefined } | undefined;
      /** The first round's read, made with the era's while it was open. */
      let first:
        | { readonly window: IdWindow; readonly ids: readonly number[]; readonly rows: EtcdIdRow[] }
        | undefined;
      const named = () => (c.stableKey ? (scanned?.ownId ?? indexed) : undefined);
      /** The window to read, and the key's own id when outside it. */
      const query = () => {
        const window = pick();
        const own = named();
        return { window, ids: own !== undefined && !window.ids.has(own) ? [own] : [] };
      };
      /** The era read the last request answered, if it read the era key. */
      let next: { readonly era: EtcdEra | undefined } | undefined;
      const era: LeaseEraStore<EtcdEra> = {
        readEra: () => {
          const answered = next;
          next = undefined;
          return answered === undefined ? store.readEra() : Promise.resolve(answered.era);
        },
        createEra: async (token) => {
          const { created, after } = await store.createEra(token);
          next = { era: after };
          return created;
        },
        openEra: async (found) => {
          const opening = query();
          const opened = await store.openEra(found, opening);
          next = { era: opened.era };
          if (opened.era?.open === true && opened.also !== undefined) {
            first = { ...opening, rows: opened.also.rows };
          }
        },
      };
      return {
        connect: async () => {
          const window = pick();
          const read = await store.onAnyMember(() =>
            store.read({ era: true, ...(c.stableKey ? { indexOf: c.key } : {}), window }),
          );
          indexed = inRangeOf(c, read.indexed);
          next = { era: read.era };
          // Read before an era is created or opened, the window may have changed meanwhile.
          if (read.era?.open === true) first = { window, ids: [], rows: read.rows };
        },
        prepare: async () => {
          keeping = setInterval(
            () => held && store.keepAliveAll([held.live, held.recent]).catch(() => undefined),
            liveTtlMs(o.fenceAfterMs) / 4,
          );
          keeping.unref();
        },
        era,
        journal,
        journalsClaims: true,
        readRound: async (round, era) => {
          let reads = 1;
          const own = named();
          let window: IdWindow;
          let rows: EtcdIdRow[];
          const read = first;
          first = undefined;
          if (read === undefined) {
            const q = query();
            window = q.window;
            rows = (await store.read(q)).rows;
          } else {
            ({ window, rows } = read);
            if (own !== undefined && !window.ids.has(own) && !read.ids.includes(own)) {
              reads++;
              rows = [...rows, ...(await store.read({ ids: [own] })).rows];
            }
          }
          // Read once: the choice below and the plan must see the same owner wait.
          const state: ClaimRoundState = { skip: round.skip, ownerWaitOver: round.ownerWaitOver };
          let byId = new Map(rows.map((r) => [r.machineId, r]));
          const ownRow = own === undefined ? undefined : byId.get(own);
          // The index is a hint: the record decides (another start may hold the id since).
          let ownId = ownRow?.data?.owner === c.key && ownRow.mayName(c.key) ? own : undefined;
          const scan = c.stableKey && ownId === undefined && !era.indexed && scanned === undefined;
          // The key's own id decides this round (taken, or waited for), or the window's fresh ids
          // (no record, or released) are tried; else every id is read, as the plan then needs
          // the whole range (a dead owner's id is taken only once none is fresh).
          const ownDecides =
            ownId !== undefined &&
            !state.skip.has(ownId) &&
            (!ownRow?.live || !state.ownerWaitOver);
          const isFresh = (r: EtcdIdRow | undefined) =>
            r === undefined || (!r.live && r.data !== undefined && r.data.owner === null);
          let only: ReadonlySet<number> | undefined = new Set(
            [...window.ids].filter((id) => !state.skip.has(id) && isFresh(byId.get(id))),
          );
          if (scan || (!ownDecides && only.size === 0)) {
            reads++;
            rows = await store.readIds();
            byId = new Map(rows.map((r) => [r.machineId, r]));
            only = undefined;
            if (scan) {
              // The key's id written last among the records naming it.
              ownId = rows
                .filter((r) => inRangeOf(c, r.machineId) !== undefined && r.mayName(c.key))
                .filter((r) => r.data?.owner === c.key)
                .sort((a, b) =>
                  Number(BigInt(b.modRevision) - BigInt(a.modRevision)),
                )[0]?.machineId;
              scanned = { ownId };
            } else if (ownId !== undefined && byId.get(ownId)?.data?.owner !== c.key) {
              ownId = undefined;
            }
          }
          // etcd tells no ages, only whether an id's reclaim lease expired. A window's read leaves
          // every other id of the range out of the plan.
          const { range } = c.request;
          const skip = new Set(state.skip);
          for (let id = range.min; only !== undefined && id <= range.max; id++) {
            if (!only.has(id) && id !== ownId) skip.add(id);
          }
          let kept: Promise<HeldLeases> | undefined;
          // Granted or kept alive when the round first writes; kept alive in vain (a busy etcd),
          // they hold no key yet when none was held, so new ones serve.
          const leases = (): Promise<HeldLeases> =>
            (kept ??= store
              .keepLeases(held, o)
              .catch((error: unknown) => {
                if (held === undefined) throw error;
                return store.keepLeases(undefined, o);
              })
              .then((l) => (held = l)));
          return {
            rows,
            ownId,
            skip,
            ownerWaitOver: state.ownerWaitOver,
            reads,
            markMs: (machineId) => byId.get(machineId)?.data?.markMs,
            write: async (candidate, markMs, claimed) => {
              const { machineId } = candidate;
              const claim = async (): Promise<EtcdClaim | undefined> => {
                const under = await leases();
                const written = await store.ofId(machineId).claim(
                  era,
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
                // etcd expired a lease before the claim reached it: nothing was written. Once
                // more, under leases kept or granted anew.
                if (!isLeaseExpired(error)) throw error;
                kept = undefined;
                return claim();
              }
            },
          };
        },
        hold: (opening, from) => etcdHold(store, o, c, opening, from),
        versionOf: (written) => written.revision,
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
