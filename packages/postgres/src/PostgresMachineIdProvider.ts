import {
  holdingOf,
  LeaseProvider,
  snapshotOfRows,
  type ClaimRoundState,
  type ClaimSnapshot,
  type LeaseClaimant,
  type LeaseClaimStats,
  type LeaseEraState,
  type LeaseStore,
} from '@vesta/lease';
import { PostgresMachineIdLease } from './PostgresMachineIdLease.js';
import {
  resolvePostgresMachineIdOptions,
  type PostgresMachineIdOptions,
  type ResolvedPostgresMachineIdOptions,
} from './PostgresMachineIdOptions.js';
import { openPool } from './pg/openPool.js';
import { PgJournal } from './pg/PgJournal.js';
import { PgTable, type IdRow } from './pg/PgTable.js';

/** What this provider's acquisitions did: a read-only snapshot (metrics, figures). */
export type PostgresMachineIdStats = LeaseClaimStats;

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
function postgresStore(
  o: ResolvedPostgresMachineIdOptions,
): LeaseStore<PostgresMachineIdLease, LeaseEraState, unknown> {
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
    open() {
      const db = o.pool ?? openPool(o);
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
        readRound: async (c, state, { era }) => {
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
        lease: (claimant, opening, from) =>
          new PostgresMachineIdLease({
            ...opening,
            db,
            table,
            options: o,
            claimant,
            ...('claimed' in from
              ? { era: from.claimed.era.era, confirmed: true }
              : { era: from.cached.era, confirmed: false }),
          }),
        // Ends a pool this provider opened (never the application's own).
        close: async () => {
          if (db !== o.pool) await db.end().catch(() => undefined);
        },
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
export class PostgresMachineIdProvider extends LeaseProvider<PostgresMachineIdLease> {
  /** Validates the options (INVALID_OPTIONS); connects only on {@link acquire}. */
  constructor(options: PostgresMachineIdOptions) {
    const o = resolvePostgresMachineIdOptions(options);
    super(postgresStore(o), o);
  }
}
