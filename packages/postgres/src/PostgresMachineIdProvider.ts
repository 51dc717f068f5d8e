import { VestaError, type MachineIdProvider, type MachineIdRequest } from '@vesta/core';
import {
  enterLeaseEra,
  holdingOf,
  LeaseClaimer,
  snapshotOfRows,
  type ClaimRoundState,
  type ClaimSnapshot,
  type LeaseClaimant,
  type LeaseClaimRound,
  type LeaseClaimStats,
  type LeaseOpening,
  eraWaitLog,
} from '@vesta/lease';
import type pg from 'pg';
import { PostgresMachineIdLease } from './PostgresMachineIdLease.js';
import {
  resolvePostgresMachineIdOptions,
  type PostgresMachineIdOptions,
  type ResolvedPostgresMachineIdOptions,
} from './PostgresMachineIdOptions.js';
import { openPool } from './pg/openPool.js';
import { PgTable, type IdRow } from './pg/PgTable.js';

/** What this provider's acquisitions did: a read-only snapshot (metrics, figures). */
export type PostgresMachineIdStats = LeaseClaimStats;

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
export class PostgresMachineIdProvider implements MachineIdProvider {
  readonly #options: ResolvedPostgresMachineIdOptions;
  readonly #table: PgTable;
  readonly #claimer: LeaseClaimer;

  /** Validates the options (INVALID_OPTIONS); connects only on {@link acquire}. */
  constructor(options: PostgresMachineIdOptions) {
    const o = resolvePostgresMachineIdOptions(options);
    this.#options = o;
    this.#table = new PgTable(o.schema, o.table);
    const root = `${o.schema}.${o.table}`;
    this.#claimer = new LeaseClaimer({
      options: o,
      files: 'postgres',
      coordinator: 'PostgreSQL',
      address: new URL(o.url).host,
      root,
    });
  }

  /** What this provider's acquisitions did so far (a frozen snapshot). */
  get stats(): PostgresMachineIdStats {
    return this.#claimer.stats;
  }

  /**
   * The store round trips this provider's claims cost so far: each claim round's read and each
   * claim write (connecting, the clock check and the era are outside the count).
   */
  get roundTrips(): number {
    return this.#claimer.roundTrips;
  }

  async acquire(request: MachineIdRequest): Promise<PostgresMachineIdLease> {
    const c = this.#claimer.claimant(request);
    const db = this.#options.pool ?? openPool(this.#options);
    try {
      await this.#table.now(db); // connects first: the round trip the clock check measures is one statement's
      await this.#claimer.checkClock(() => this.#table.now(db));
    } catch (cause) {
      if (VestaError.is(cause, 'CLOCK_OUT_OF_SYNC')) {
        await this.#end(db);
        throw cause;
      }
      return this.#claimer.startFromCache(
        c,
        cause,
        () => this.#end(db),
        (cached, opening, holder) => this.#lease(db, holder, opening, cached.era, false),
      );
    }
    try {
      await this.#table.ensure(db);
      const pollMs = Math.min(250, Math.max(10, this.#options.refreshIntervalMs / 2));
      return await this.#claimer.claim(c, pollMs, (state) => this.#round(db, c, state));
    } catch (error) {
      await this.#end(db);
      throw this.#claimer.failure(error);
    }
  }

  /** Ends a pool this provider opened (never the application's own). */
  async #end(db: pg.Pool): Promise<void> {
    if (db !== this.#options.pool) await db.end().catch(() => undefined);
  }

  /** One claim round: the open era, the rows of the range and the key, and how to claim one. */
  async #round(
    db: pg.Pool,
    c: LeaseClaimant,
    state: ClaimRoundState,
  ): Promise<LeaseClaimRound<PostgresMachineIdLease>> {
    const o = this.#options;
    const table = this.#table;
    const { era } = await enterLeaseEra(
      {
        readEra: () => table.readEra(db),
        createEra: (token: string) => table.createEra(db, token),
        openEra: (found: { era: string }) => table.openEra(db, found.era),
      },
      o.eraWaitMs,
      o.time,
      eraWaitLog(o.logger, 'PostgreSQL', { table: `${o.schema}.${o.table}` }),
    );
    const { min, max } = c.request.range;
    const { liveIds, rows } = await table.readClaimRows(db, min, max, c.key);
    const byId = new Map(rows.map((r) => [r.machineId, r]));
    return {
      snapshot: this.#snapshot(c, rows, liveIds, state),
      take: (candidate) => {
        const row = byId.get(candidate.machineId);
        return this.#claimer.takeWithFence({
          machineId: candidate.machineId,
          floorMarkMs: row?.markMs ?? 0,
          type: c.request.type,
          write: (markMs) =>
            table.claim(
              db,
              era,
              candidate.machineId,
              row?.version,
              holdingOf(c, markMs),
              o.fenceAfterMs,
            ),
          lease: (_version, opening) => this.#lease(db, c, opening, era, true),
        });
      },
    };
  }

  /** The claim snapshot of the rows read. */
  #snapshot(
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
    const held = liveIds.map((machineId) => ({
      machineId,
      live: true,
      owner: undefined,
      idleMs: 0,
    }));
    return snapshotOfRows([...rows, ...held], {
      ...state,
      range: c.request.range,
      reclaimAfterMs: this.#options.reclaimAfterMs,
      ownId,
    });
  }

  #lease(
    db: pg.Pool,
    c: LeaseClaimant,
    opening: LeaseOpening,
    era: string | undefined,
    confirmed: boolean,
  ): PostgresMachineIdLease {
    return new PostgresMachineIdLease({
      ...opening,
      db,
      table: this.#table,
      options: this.#options,
      cache: this.#claimer.cache,
      claimant: c,
      era,
      confirmed,
    });
  }
}
