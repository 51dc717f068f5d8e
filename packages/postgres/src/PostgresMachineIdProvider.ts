import { holdingOf, LeaseProvider } from '@vesta/lease';
import type { HoldVerbs, LeaseEraState, LeaseStore } from '@vesta/lease';
import { postgresOptions, type PostgresMachineIdOptions } from './PostgresMachineIdOptions.js';
import type { ResolvedPostgresMachineIdOptions } from './PostgresMachineIdOptions.js';
import { PgTable } from './PgTable.js';

/** PostgreSQL as a lease store; a start may run on the cached lease (`fallbackToCache`). */
function postgresStore(o: ResolvedPostgresMachineIdOptions): LeaseStore<LeaseEraState, number> {
  const root = `${o.schema}.${o.table}`;
  return {
    coordinator: 'PostgreSQL',
    files: 'postgres',
    address: o.target.where,
    root,
    eraLogFields: { table: root },
    pollMs: Math.min(250, Math.max(10, o.refreshIntervalMs / 2)),
    startsFromCache: true,
    open(c) {
      const table = new PgTable(o);
      const { eraStore } = table;
      const close = () => table.close();
      return {
        connect: () => table.connect(),
        readClock: () => table.now(),
        prepare: async () => {
          await table.ensure();
          await table.ensure(table.journal);
        },
        era: eraStore,
        journal: { append: (entry) => table.append(entry, o.journalRetention) },
        readRound: async (_, { era }) => {
          const { range } = c.request;
          const { byId, rows, ownId } = await table.readClaimRows(range.min, range.max, c.key);
          return {
            rows,
            ownId,
            write: ({ machineId }, markMs) =>
              table.claim(era, machineId, byId.get(machineId)?.version, holdingOf(c, markMs)),
          };
        },
        hold: (machineId): HoldVerbs<number> => ({
          renew: async ({ era }, h, version, retake) =>
            (await (retake
              ? table.claim(era, machineId, version, h)
              : table.renew(era, machineId, c.instance, h.markMs))) ?? 'conflict',
          read: async () => {
            const [era, rows] = await Promise.all([eraStore.readEra(), table.readRows(machineId)]);
            return { era, record: rows[0] };
          },
          release: ({ era }, h) =>
            table.release(era, machineId, c.instance, h.markMs, h.owner !== null),
          close,
        }),
        close,
      };
    },
  };
}

/**
 * Leases machine ids from a PostgreSQL table: the same id for the same key, expired ids taken over
 * with their marks (see the package README).
 */
export class PostgresMachineIdProvider extends LeaseProvider<LeaseEraState, number> {
  /** Validates the options (INVALID_OPTIONS); connects only on {@link acquire}. */
  constructor(options: PostgresMachineIdOptions) {
    const o = postgresOptions.resolve(options);
    super(postgresStore(o), o);
  }
}
