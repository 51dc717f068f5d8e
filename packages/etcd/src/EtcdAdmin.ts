import { LeaseAdmin, type LeaseAllocation } from '@vesta/lease';
import { resolveEtcdAdminOptions, type EtcdAdminOptions } from './EtcdMachineIdOptions.js';
import { EtcdNamespace, type EtcdIdRow } from './etcd/EtcdNamespace.js';

/** One machine id's allocation; `ageMs` is this host's clock against the writer's. */
export interface EtcdMachineIdAllocation extends LeaseAllocation {
  /** Whether its owner renewed within the reclaim delay (its reclaim lease has not expired). */
  readonly recent: boolean;
}

const rowOf = (row: EtcdIdRow) => ({
  machineId: row.machineId,
  record: row.data,
  alive: row.live,
  fields: { recent: row.recent },
  ageMs: Math.max(0, Date.now() - (row.data?.writtenAtMs ?? Date.now())),
  modRevision: row.modRevision,
});

/** Operators' view of a fleet's allocations in etcd (see {@link LeaseAdmin}); connects on each call. */
export class EtcdAdmin extends LeaseAdmin<
  EtcdMachineIdAllocation,
  EtcdNamespace,
  ReturnType<typeof rowOf>
> {
  constructor(options: EtcdAdminOptions) {
    const o = resolveEtcdAdminOptions(options);
    super({
      store: 'etcd',
      where: `under ${o.root}`,
      namespace: `etcd under ${o.root}`,
      open: () => new EtcdNamespace(o),
      close: (store) => store.close(),
      list: async (store) => (await store.read({})).rows.map(rowOf),
      read: async (store, machineId) => (await store.read({ ids: [machineId] })).rows.map(rowOf)[0],
      // The holder finds its record moved at its next write.
      release: (store, row) => store.adminRelease(row.machineId, row.modRevision, row.record),
      init: (store, era, limit) => store.initEra(era, limit),
      history: (store) => store.readJournal(),
    });
  }
}
