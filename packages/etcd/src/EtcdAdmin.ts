import {
  defineAdminOptions,
  LeaseAdmin,
  type AdminStore,
  type CoordinatorAdminOptions,
  type LeaseAllocation,
} from '@vesta/lease';
import { etcdMachineIdOptions, type EtcdMachineIdOptions } from './EtcdMachineIdOptions.js';
import { readEtcdJournal } from './etcd/etcdJournal.js';
import { EtcdStore, type EtcdIdRow, type IdRecordData } from './etcd/EtcdStore.js';

/** The provider's options an admin connects with (their declarations and TSDoc are the provider's). */
const CONNECTION = { endpoints: true, root: true } as const;

/** The declaration of {@link EtcdAdminOptions}: the provider's connection, a deadline. */
const etcdAdminOptions = defineAdminOptions(
  'etcd',
  etcdMachineIdOptions.schema.pick(CONNECTION).shape,
);

/** Options of {@link EtcdAdmin}: the provider's connection options and `timeoutMs`. */
export type EtcdAdminOptions = Pick<EtcdMachineIdOptions, keyof typeof CONNECTION> &
  CoordinatorAdminOptions;

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
function allocationOf(
  row: EtcdIdRow,
  data: Partial<IdRecordData> | undefined,
  ageMs = 0,
): EtcdMachineIdAllocation {
  return {
    machineId: row.machineId,
    owner: data?.owner ?? null,
    alive: row.live,
    recent: row.recent,
    markMs: data?.markMs ?? 0,
    ageMs,
    host: data?.host,
    pid: data?.pid,
  };
}

/** etcd as its admin reaches it: a client of its own per call, the keys under the root. */
function etcdAdminStore(
  o: ReturnType<typeof etcdAdminOptions.resolve>,
): AdminStore<EtcdMachineIdAllocation, EtcdStore> {
  return {
    store: 'etcd',
    where: `under ${o.root}`,
    namespace: `etcd under ${o.root}`,
    open: () =>
      new EtcdStore({
        endpoints: o.endpoints,
        root: o.root,
        connectTimeoutMs: o.timeoutMs,
        operationTimeoutMs: o.timeoutMs,
      }),
    close: (store) => store.close(),
    list: async (store) =>
      (await store.readIds()).map((r) =>
        allocationOf(r, r.data, Math.max(0, Date.now() - (r.data?.writtenAtMs ?? Date.now()))),
      ),
    read: async (store, machineId) => {
      const row = (await store.readIds()).find((r) => r.machineId === machineId);
      if (row === undefined) return undefined;
      const { data } = row;
      if (data === undefined) return 'unreadable';
      return {
        allocation: allocationOf(row, data),
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
export class EtcdAdmin extends LeaseAdmin<EtcdMachineIdAllocation, EtcdStore> {
  constructor(options: EtcdAdminOptions) {
    super(etcdAdminStore(etcdAdminOptions.resolve(options)));
  }
}
