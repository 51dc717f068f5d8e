import {
  holdingOf,
  LeaseProvider,
  snapshotOfRows,
  storeHold,
  type ClaimRoundState,
  type ClaimSnapshot,
  type LeaseClaimant,
  type LeaseEraState,
  type LeaseStore,
} from '@vesta/lease';
import {
  resolvePostgresMachineIdOptions,
  type PostgresMachineIdOptions,
  type ResolvedPostgresMachineIdOptions,
} from './PostgresMachineIdOptions.js';
import { openPool, reachPrimary } from './pg/openPool.js';
import { PgJournal } from './pg/PgJournal.js';
import { isPgError, PG, PgTable, type IdRow } from './pg/PgTable.js';

/**
 * What a statement answers when the table (or its schema) is gone, a store that lost its data:
 * `answer`, read as no era and no row; any other failure is thrown on.
 */
const tableGone =
  <T>(answer: T) =>
  (error: unknown): T => {
    if (!isPgError(error, PG.UNDEFINED_TABLE, PG.INVALID_SCHEMA)) throw error;
    return answer;
  };

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
    address: o.target.where,
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
        // Connected by a first statement: the round trip the clock check measures is then one
        // statement's. A failure to connect may start on the cache.
        connect: async () => {
          if (o.pool === undefined) await reachPrimary(db, o.target);
          await table.now(db);
        },
        readClock: () => table.now(db),
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
        hold: ({ machineId, floorMarkMs }, from) =>
          storeHold<true>(
            {
              renew: async (era, holding) =>
                (await table
                  .renew(db, era, machineId, c.instance, holding.markMs, o.fenceAfterMs)
                  .catch(tableGone(false)))
                  ? true
                  : 'conflict',
              read: async () => {
                const [era, rows] = await Promise.all([
                  table.readEra(db),
                  table.readRows(db, machineId, machineId, ''),
                ]).catch(tableGone([undefined, []] as const));
                const row = rows.find((r) => r.machineId === machineId);
                return { era, record: row === undefined ? undefined : { ...row, version: true } };
              },
              retake: async (era, holding) =>
                (await table.reconfirm(
                  db,
                  era,
                  machineId,
                  holding,
                  floorMarkMs,
                  o.fenceAfterMs,
                )) === undefined
                  ? 'conflict'
                  : true,
              release: (era, holding) =>
                table.release(
                  db,
                  era,
                  machineId,
                  c.instance,
                  holding.markMs,
                  holding.owner !== null,
                ),
              close,
            },
            {
              claimant: c,
              floorMarkMs,
              claimed: 'claimed' in from ? { era: from.claimed.era.era, version: true } : undefined,
            },
          ),
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
