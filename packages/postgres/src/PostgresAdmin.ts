import { LeaseAdmin, type LeaseAllocation } from '@vesta/lease';
import { postgresOptions, type PostgresAdminOptions } from './PostgresMachineIdOptions.js';
import { PgTable, type IdRow } from './PgTable.js';

const toRow = (row: IdRow) => ({ ...row, record: row, alive: row.live, ageMs: row.idleMs });
type Row = ReturnType<typeof toRow>;

/**
 * One machine id's allocation: `alive` while a holder's expiry is ahead, `ageMs` since the row
 * was last written, both on the database's clock.
 */
export type PostgresMachineIdAllocation = LeaseAllocation;

/**
 * Operators' view of a fleet's allocations in PostgreSQL (see {@link LeaseAdmin}). Validates the
 * options (INVALID_OPTIONS); opens a pool of its own on each call. The URL's query may name the
 * schema and table; the provider's other options in it are ignored.
 */
export class PostgresAdmin extends LeaseAdmin<PostgresMachineIdAllocation, PgTable, Row> {
  constructor(options: PostgresAdminOptions) {
    const o = postgresOptions.resolveAdmin(options);
    const deadlines = { connectTimeoutMs: o.timeoutMs, operationTimeoutMs: o.timeoutMs };
    super({
      store: 'PostgreSQL',
      where: `in ${o.schema}.${o.table}`,
      namespace: `PostgreSQL table ${o.schema}.${o.table}`,
      open: () => new PgTable({ ...o, ...deadlines }),
      connect: (table) => table.connect(),
      close: (table) => table.close(),
      list: async (table) => (await table.readRows()).map(toRow),
      read: async (table, machineId) => {
        const [row] = await table.readRows(machineId);
        return row && toRow(row);
      },
      // A live holder finds its row taken at its next renewal.
      release: (table, row) => table.adminRelease(row.machineId, row.version),
      // Creates the table when missing, then the era open in one transaction if it holds no row.
      init: async (table, era, limit) => {
        await table.ensure();
        return table.initEra(era, limit);
      },
      history: (table) => table.history(),
    });
  }
}
