import { defineCoordinator, LeaseAdmin, machineIdProviderModule } from '@vesta/lease';
import type { LeaseAllocation } from '@vesta/lease';
import type { ContainerModule } from 'inversify';
import { postgresOptions, type PostgresAdminOptions } from './PostgresMachineIdOptions.js';
import type { PostgresMachineIdOptions } from './PostgresMachineIdOptions.js';
import { PostgresMachineIdProvider } from './PostgresMachineIdProvider.js';
import { PgTable, type IdRow } from './PgTable.js';

const toRow = (row: IdRow) => ({ ...row, record: row, alive: row.live, ageMs: row.idleMs });
type Row = ReturnType<typeof toRow>;

/** One machine id's allocation: `alive` and `ageMs` (since its last write) on the database's clock. */
export type PostgresMachineIdAllocation = LeaseAllocation;

/** Operators' view of a fleet's allocations in PostgreSQL (see {@link LeaseAdmin}); a pool of its own each call. */
export class PostgresAdmin extends LeaseAdmin<PostgresMachineIdAllocation, PgTable, Row> {
  constructor(options: PostgresAdminOptions) {
    const o = postgresOptions.resolveAdmin(options);
    super({
      store: 'PostgreSQL',
      where: `in ${o.schema}.${o.table}`,
      namespace: `PostgreSQL table ${o.schema}.${o.table}`,
      open: () => new PgTable(o),
      connect: (table) => table.connect(),
      close: (table) => table.close(),
      list: async (table) => (await table.readRows()).map(toRow),
      read: async (table, machineId) => (await table.readRows(machineId)).map(toRow)[0],
      // A live holder finds its row taken at its next renewal.
      release: (table, row) => table.adminRelease(row.machineId, row.version),
      init: (table, era, limit) => table.initEra(era, limit),
      history: (table) => table.history(),
    });
  }
}

/** An inversify module binding `TOKENS.MachineIdProvider` to a PostgreSQL provider: one per service. */
export const postgresMachineIdModule = (options: PostgresMachineIdOptions): ContainerModule =>
  machineIdProviderModule(new PostgresMachineIdProvider(options));

/** PostgreSQL as `--coordinator` takes it: one server, or a primary and its standbys. */
export const postgresCoordinator = defineCoordinator({
  schemes: ['postgres', 'postgresql'],
  form: 'postgres://user[:password]@host:port[,host:port...]/database[?schema=name&table=name&option=value...]',
  example: 'postgres://vesta:secret@db1.internal:5432,db2.internal:5432/app?schema=ids',
  module: postgresMachineIdModule,
  admin: (options) => new PostgresAdmin(options),
});
