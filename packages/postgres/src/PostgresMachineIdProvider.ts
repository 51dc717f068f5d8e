import {
  holdingOf,
  LeaseProvider,
  snapshotOfRows,
  type ClaimRoundState,
  type ClaimSnapshot,
  type HoldLoss,
  type LeaseClaimant,
  type LeaseEraState,
  type LeaseStore,
} from '@vesta/lease';
import {
  resolvePostgresMachineIdOptions,
  type PostgresMachineIdOptions,
  type ResolvedPostgresMachineIdOptions,
} from './PostgresMachineIdOptions.js';
import { openPool } from './pg/openPool.js';
import { PgJournal } from './pg/PgJournal.js';
import { isPgError, PG, PgTable, type IdRow } from './pg/PgTable.js';

/** The loss of a lease, for a reason a statement cannot tell apart. */
const lost = (why: string): HoldLoss => ({ lost: 'other', why });

/** The claim snapshot of the rows a round read. */
function snapshotOf(
  o: ResolvedPostgresMachineIdOptions,
  c: LeaseClaimant,
  rows: readonly IdRow[],
  liveIds: readonly number[],
  state: ClaimRoundState,
): ClaimSnapshot {
  // A key's own id: the row naming it last written (a key may name an older row it gave up).
  const ownId = c.stableKey
    ? rows.filter((r) => r.owner === c.key).sort((a, b) => b.updatedAtMs - a.updatedAtMs)[0]
        ?.machineId
    : undefined;
  const held = liveIds.map((machineId) => ({ machineId, live: true, owner: undefined, idleMs: 0 }));
  return snapshotOfRows([...rows, ...held], {
    ...state,
    range: c.request.range,
    reclaimAfterMs: o.reclaimAfterMs,
    ownId,
  });
}

/**
 * PostgreSQL as a lease store: a round is one statement returning the live ids and the rows a
 * claim plans on, a claim one version-checked upsert; every expiry runs on the database's clock.
 * A start may run on the cached lease while the database is unreachable (`fallbackToCache`).
 */
function postgresStore(o: ResolvedPostgresMachineIdOptions): LeaseStore<LeaseEraState, unknown> {
  const table = new PgTable(o.schema, o.table);
  const journal = new PgJournal(table);
  return {
    coordinator: 'PostgreSQL',
    files: 'postgres',
    address: new URL(o.url).host,
    root: `${o.schema}.${o.table}`,
    eraLogFields: { table: `${o.schema}.${o.table}` },
    pollMs: Math.min(250, Math.max(10, o.refreshIntervalMs / 2)),
    startsFromCache: true,
    open(c) {
      const db = o.pool ?? openPool(o);
      // Ends a pool this provider opened (never the application's own).
      const close = async (): Promise<void> => {
        if (db !== o.pool) await db.end().catch(() => undefined);
      };
      return {
        // Connects first: the round trip the clock check measures is then one statement's. A
        // failure of either read (not a clock out of sync) may start on the cache.
        connect: async (claimer) => {
          await table.now(db);
          await claimer.checkClock(() => table.now(db));
        },
        prepare: async () => {
          await table.ensure(db);
          await journal.ensure(db);
        },
        era: {
          readEra: () => table.readEra(db),
          createEra: (token) => table.createEra(db, token),
          openEra: (found) => table.openEra(db, found.era),
        },
        journal: journal.writer(db, o.journalRetention),
        readRound: async (state, { era }) => {
          const { min, max } = c.request.range;
          const { liveIds, rows } = await table.readClaimRows(db, min, max, c.key);
          const byId = new Map(rows.map((r) => [r.machineId, r]));
          return {
            snapshot: snapshotOf(o, c, rows, liveIds, state),
            floorMarkMs: ({ machineId }) => byId.get(machineId)?.markMs ?? 0,
            write: ({ machineId }, markMs) =>
              table.claim(
                db,
                era,
                machineId,
                byId.get(machineId)?.version,
                holdingOf(c, markMs),
                o.fenceAfterMs,
              ),
          };
        },
        // Each turn moves the expiry on the database's clock and publishes the mark, while the
        // row is this instance's under the era; after a start from the cache, takes the row back.
        hold: ({ machineId, floorMarkMs }) => ({
          renew: async ({ everConfirmed, era, mark }) => {
            try {
              if (everConfirmed) {
                if (era === undefined) return 'missed';
                const renewed = await table.renew(
                  db,
                  era,
                  machineId,
                  c.instance,
                  mark(),
                  o.fenceAfterMs,
                );
                return renewed
                  ? 'confirmed'
                  : lost(
                      'its row is gone or names another holder, or the allocation era changed (PostgreSQL lost its data, or the id was released by hand)',
                    );
              }
              if (era === undefined) return lost('the cached lease holds no allocation era');
              const taken = await table.reconfirm(
                db,
                era,
                machineId,
                holdingOf(c, mark()),
                floorMarkMs,
                o.fenceAfterMs,
              );
              return taken !== undefined
                ? 'confirmed'
                : lost(
                    'the cached id was taken by another holder meanwhile, or the table lost its data',
                  );
            } catch (error) {
              if (!isPgError(error, PG.UNDEFINED_TABLE, PG.INVALID_SCHEMA)) throw error;
              return lost('the allocation table is gone (PostgreSQL lost its data)');
            }
          },
          release: async (markMs, { era }) =>
            era !== undefined && table.release(db, era, machineId, c.instance, markMs, c.stableKey),
          close,
        }),
        close,
      };
    },
  };
}

/**
 * Leases machine ids from a PostgreSQL table: unique among live instances, the same id for the
 * same key across restarts, expired ids taken over after a reclaim delay with their time marks
 * carried over, and no id handed out from a table that lost its rows before every holder of the
 * lost rows has fenced itself. Ids are reused, never burned per start. See the package README.
 *
 * @example
 * const ids = await createEmbeddedIdService({
 *   machineIdProvider: new PostgresMachineIdProvider({ url: 'postgres://vesta@db:5432/app', key: 'orders-7' }),
 * });
 */
export class PostgresMachineIdProvider extends LeaseProvider {
  /** Validates the options (INVALID_OPTIONS); connects only on {@link acquire}. */
  constructor(options: PostgresMachineIdOptions) {
    const o = resolvePostgresMachineIdOptions(options);
    super(postgresStore(o), o);
  }
}
