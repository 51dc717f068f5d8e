import { LeaseAdmin, type LeaseAllocation } from '@vesta/lease';
import { resolveEtcdAdminOptions, type EtcdAdminOptions } from './EtcdMachineIdOptions.js';
import { EtcdNamespace, type EtcdIdRow } from './etcd/EtcdNamespace.js';

export type { EtcdAdminOptions };

/** One machine id's allocation; `ageMs` is this host's clock against the writer's. */
export interface EtcdMachineIdAllocation extends LeaseAllocation {
  /** Whether its owner renewed within the reclaim delay (its reclaim lease has not expired). */
  readonly recent: boolean;
}

const toRow = (row: EtcdIdRow, ageMs = 0) => ({
  machineId: row.machineId,
  record: row.data,
  alive: row.live,
  fields: { recent: row.recent },
  ageMs,
  modRevision: row.modRevision,
});

/** Operators' view of a fleet's allocations in etcd (see {@link LeaseAdmin}); connects on each call. */
export class EtcdAdmin extends LeaseAdmin<
  EtcdMachineIdAllocation,
  EtcdNamespace,
  ReturnType<typeof toRow>
> {
  constructor(options: EtcdAdminOptions) {
    const o = resolveEtcdAdminOptions(options);
    super({
      store: 'etcd',
      where: `under ${o.root}`,
      namespace: `etcd under ${o.root}`,
      open: () => new EtcdNamespace(o),
      close: (store) => store.close(),
      list: async (store) =>
        (await store.read({})).rows.map((r) =>
          toRow(r, Math.max(0, Date.now() - (r.data?.writtenAtMs ?? Date.now()))),
        ),
      read: async (store, machineId) => {
        const row = (await store.read({ ids: [machineId] })).rows[0];
        return row && toRow(row);
      },
      // The holder finds its record moved at its next write.
      release: (store, row) => store.adminRelease(row.machineId, row.modRevision, row.record),
      init: (store, era, limit) => store.initEra(era, limit),
      history: (store) => store.readJournal(),
    });
  }
}
