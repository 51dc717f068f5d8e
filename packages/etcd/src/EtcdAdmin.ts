import {
  allocationOf,
  defineAdminOptions,
  LeaseAdmin,
  type AdminOptionsOf,
  type AdminStore,
  type LeaseAllocation,
} from '@vesta/lease';
import { etcdMachineIdOptions, withEtcdUrl } from './EtcdMachineIdOptions.js';
import { readEtcdJournal } from './etcd/etcdJournal.js';
import { EtcdNamespace, type EtcdIdRow } from './etcd/EtcdNamespace.js';

/** The declaration of {@link EtcdAdminOptions}: the provider's connection, a deadline. */
const etcdAdminOptions = defineAdminOptions('etcd', etcdMachineIdOptions.schema, [
  'endpoints',
  'url',
  'root',
]);

/** Options of {@link EtcdAdmin}: the provider's `endpoints` and `root`, and `timeoutMs`. */
export type EtcdAdminOptions = AdminOptionsOf<typeof etcdAdminOptions>;

/**
 * One machine id's allocation, as {@link EtcdAdmin.list} reports it: `alive` when a live key
 * holds it (its holder's etcd lease has not expired), `ageMs` since the record was last written
 * (this host's clock against the writer's).
 */
export interface EtcdMachineIdAllocation extends LeaseAllocation {
  /** Whether its owner renewed within the reclaim delay (its reclaim lease has not expired). */
  readonly recent: boolean;
}

/** An id's allocation from its row (age 0 unless given). */
function allocationOfRow(row: EtcdIdRow, ageMs = 0): EtcdMachineIdAllocation {
  return allocationOf(row.machineId, row.data, { alive: row.live, recent: row.recent, ageMs });
}

/** etcd as its admin reaches it: a client of its own per call, the keys under the root. */
function etcdAdminStore(
  o: ReturnType<typeof etcdAdminOptions.resolve> & { readonly endpoints: string[] },
): AdminStore<EtcdMachineIdAllocation, EtcdNamespace> {
  return {
    store: 'etcd',
    where: `under ${o.root}`,
    namespace: `etcd under ${o.root}`,
    open: () =>
      new EtcdNamespace({
        endpoints: o.endpoints,
        root: o.root,
        connectTimeoutMs: o.timeoutMs,
        operationTimeoutMs: o.timeoutMs,
      }),
    close: (store) => store.close(),
    list: async (store) =>
      (await store.readIds()).map((r) =>
        allocationOfRow(r, Math.max(0, Date.now() - (r.data?.writtenAtMs ?? Date.now()))),
      ),
    read: async (store, machineId) => {
      const row = (await store.readIds()).find((r) => r.machineId === machineId);
      if (row === undefined) return undefined;
      const { data } = row;
      if (data === undefined) return 'unreadable';
      return {
        allocation: allocationOfRow(row),
        // Owner and holder cleared, live key deleted: the holder finds its record moved.
        release: async () =>
          (await store.adminRelease(machineId, row.modRevision, data)) ? 'released' : 'raced',
      };
    },
    // Only when no key at all lies under `<root>/` (no era, record, live or recent key).
    init: (store, era, limit) => store.initEra(era, limit),
    history: (store) => readEtcdJournal(store),
  };
}

/**
 * Operators' view of a fleet's allocations in etcd: list them, release an id by hand, declare a
 * root new (see {@link LeaseAdmin}). Validates the options (INVALID_OPTIONS); connects on each
 * call.
 */
export class EtcdAdmin extends LeaseAdmin<EtcdMachineIdAllocation, EtcdNamespace> {
  constructor(options: EtcdAdminOptions) {
    const o = etcdAdminOptions.resolve(withEtcdUrl(options, ['root']));
    super(etcdAdminStore({ ...o, endpoints: o.endpoints as string[] }));
  }
}
