import type { MachineIdRange } from '@vesta/core';
import { holdingOf, LeaseProvider, type LeaseStore } from '@vesta/lease';
import { EtcdLeaseInvalidError } from 'etcd3';
import {
  resolveEtcdMachineIdOptions,
  type EtcdMachineIdOptions,
  type ResolvedEtcdMachineIdOptions,
} from './EtcdMachineIdOptions.js';
import {
  EtcdNamespace,
  liveTtlMs,
  type EtcdEra,
  type EtcdIdRow,
  type HeldLeases,
  type KeySpan,
} from './etcd/EtcdNamespace.js';

/** A span of the key order, and the ids of the range in it. */
export type IdWindow = KeySpan & { readonly ids: ReadonlySet<number> };

/** The ids a window holds at most. */
export const WINDOW_IDS = 64;

const windowsByRange = new Map<string, readonly IdWindow[]>();

/**
 * The ids of `range` cut into windows of {@link WINDOW_IDS} or fewer, of even sizes (a smaller
 * one would see more starts race for each id), each a span of the key order (`1`, `10`, `100`, `2`).
 */
export function idWindows({ min, max }: MachineIdRange): readonly IdWindow[] {
  let windows = windowsByRange.get(`${min}-${max}`);
  if (windows === undefined) {
    const keys = Array.from({ length: max - min + 1 }, (_, i) => String(min + i)).sort();
    const count = Math.ceil(keys.length / WINDOW_IDS);
    const cut = (n: number) => Math.round((n * keys.length) / count);
    windows = Array.from({ length: count }, (_, n) => ({
      from: keys[cut(n)] as string,
      to: keys[cut(n + 1)],
      ids: new Set(keys.slice(cut(n), cut(n + 1)).map(Number)),
    }));
    windowsByRange.set(`${min}-${max}`, windows);
  }
  return windows;
}

/** etcd as a lease store (the README's Design): its rounds read a window at a time. */
function etcdStore(
  o: ResolvedEtcdMachineIdOptions,
): LeaseStore<EtcdEra, string, EtcdIdRow, IdWindow> {
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
      // Kept alive at a round's first claim (its era read anew); in vain, new ones serve.
      const kept = new WeakMap<EtcdEra, Promise<HeldLeases>>();
      const leasesOf = (era: EtcdEra): Promise<HeldLeases> => {
        const leases =
          kept.get(era) ??
          store
            .keepLeases(held, o)
            .catch((error: unknown) => {
              if (held === undefined) throw error;
              return store.keepLeases(undefined, o);
            })
            .then((l) => (held = l));
        kept.set(era, leases);
        return leases;
      };
      return {
        connect: (along) =>
          store.onAnyMember(() =>
            store.read({ era: true, ...(c.stableKey && { indexOf: c.key }), ids: [], ...along }),
          ),
        prepare: async () => {
          keeping = setInterval(
            () => held && store.keepAliveAll([held.live, held.recent]).catch(() => undefined),
            liveTtlMs(o.fenceAfterMs) / 4,
          ).unref();
        },
        era: {
          readEra: async () => (await store.read({ era: true, ids: [] })).era,
          createEra: (era) => store.createEra(era),
          openEra: (found, along) => store.openEra(found, along),
        },
        journal: { append: (entry) => store.appendJournal(entry, o.journalRetention) },
        journalsClaims: true,
        windows: {
          windows: idWindows(c.request.range),
          read: async (q) => (await store.read(q)).rows,
          names: (r) => r.mayName(c.key) && r.data?.owner === c.key,
          newestFirst: (a, b) => Number(BigInt(b.modRevision) - BigInt(a.modRevision)),
          claim: (era, { machineId, kind }, row, markMs, claimed) => {
            const claim = async () =>
              store.claim(
                era,
                machineId,
                row?.modRevision,
                kind === 'reclaimed',
                holdingOf(c, markMs),
                await leasesOf(era),
                c.stableKey ? c.key : undefined,
                { entry: claimed, retention: o.journalRetention },
              );
            // A lease expired before the claim reached etcd (nothing written): once more.
            return claim().catch((error: unknown) => {
              if (!(error instanceof EtcdLeaseInvalidError)) throw error;
              kept.delete(era);
              return claim();
            });
          },
        },
        hold: (machineId) => {
          clearInterval(keeping);
          return store.hold(machineId, c.key, held, o);
        },
        close: async () => {
          clearInterval(keeping);
          const leases = held === undefined ? [] : [held.live, held.recent];
          await Promise.all(leases.map((l) => store.revoke(l))).catch(() => undefined);
          store.close();
        },
      };
    },
  };
}

/**
 * Leases machine ids from etcd: unique among live instances, the same id for the same key across
 * restarts, dead owners' ids reclaimed once etcd expired their reclaim lease. See the README.
 *
 * @example
 * const ids = await createEmbeddedIdService({
 *   machineIdProvider: new EtcdMachineIdProvider({ endpoints: 'etcd1:2379,etcd2:2379', key: 'orders-7' }),
 * });
 */
export class EtcdMachineIdProvider extends LeaseProvider<EtcdEra, string, EtcdIdRow, IdWindow> {
  /** Validates the options (INVALID_OPTIONS); connects only on {@link acquire}. */
  constructor(options: EtcdMachineIdOptions) {
    const o = resolveEtcdMachineIdOptions(options);
    super(etcdStore(o), o);
  }
}
