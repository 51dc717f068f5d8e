import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { VestaError, type MachineIdProvider, type MachineIdRequest } from '@vesta/core';
import {
  cachedLeaseFallback,
  enterLeaseEra,
  clockBehindMark,
  LeaseCache,
  LeaseFence,
  leaseUnitMs,
  planLeaseClaim,
  sleepOn,
  type ClaimCandidate,
  type ClaimKind,
  type IdRecord,
} from '@vesta/core/kit';
import type pg from 'pg';
import { PostgresMachineIdLease, type PgLeaseStart } from './PostgresMachineIdLease.js';
import {
  resolvePostgresMachineIdOptions,
  type PostgresMachineIdOptions,
  type ResolvedPostgresMachineIdOptions,
} from './PostgresMachineIdOptions.js';
import { openPool } from './pg/openPool.js';
import { PgTable, type IdRow } from './pg/PgTable.js';

const MAX_ROUNDS = 50;

/** What this provider's acquisitions did: a read-only snapshot (metrics, figures). */
export interface PostgresMachineIdStats {
  /** Ids taken that had never been used, or were released. */
  readonly fresh: number;
  /** Ids given back to the key that held them before. */
  readonly reused: number;
  /** Dead owners' ids taken over after the reclaim delay. */
  readonly reclaimed: number;
  /** Start-ups refused with MACHINE_ID_EXHAUSTED. */
  readonly refused: number;
  /** Start-ups on the cached lease while PostgreSQL was down. */
  readonly fromCache: number;
}

/** Who claims: the same for every id tried in one acquisition. */
interface Claimant {
  readonly db: pg.Pool;
  readonly key: string;
  readonly stableKey: boolean;
  readonly instance: string;
  readonly request: MachineIdRequest;
}

/** Whether a failure means PostgreSQL could not be reached (as opposed to a refusal of ours). */
function unavailable(url: string, error: unknown): VestaError {
  if (VestaError.is(error)) return error;
  return new VestaError(
    'COORDINATOR_UNAVAILABLE',
    `could not lease a machine id from PostgreSQL at ${new URL(url).host}: ${String(error)}`,
    { cause: error },
  );
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
export class PostgresMachineIdProvider implements MachineIdProvider {
  readonly #options: ResolvedPostgresMachineIdOptions;
  readonly #table: PgTable;
  readonly #cache: LeaseCache | undefined;
  readonly #stats: { -readonly [K in keyof PostgresMachineIdStats]: number } = {
    fresh: 0,
    reused: 0,
    reclaimed: 0,
    refused: 0,
    fromCache: 0,
  };

  /** Validates the options (INVALID_OPTIONS); connects only on {@link acquire}. */
  constructor(options: PostgresMachineIdOptions) {
    this.#options = resolvePostgresMachineIdOptions(options);
    this.#table = new PgTable(this.#options.schema, this.#options.table);
    this.#cache =
      this.#options.stateDir === undefined
        ? undefined
        : new LeaseCache(this.#options.stateDir, 'postgres', this.#root);
  }

  get #root(): string {
    return `${this.#options.schema}.${this.#options.table}`;
  }

  /** What this provider's acquisitions did so far (a frozen snapshot). */
  get stats(): PostgresMachineIdStats {
    return Object.freeze({ ...this.#stats });
  }

  async acquire(request: MachineIdRequest): Promise<PostgresMachineIdLease> {
    const o = this.#options;
    const stableKey = o.key !== undefined || this.#cache !== undefined;
    const key = o.key ?? this.#cache?.key() ?? `${hostname()}/${process.pid}/${randomUUID()}`;
    const db = openPool({ ...o, logger: o.logger });
    let skew: { skewMs: number; rttMs: number };
    try {
      skew = await this.#clockSkew(db);
    } catch (error) {
      return this.#fromCache(db, key, request, error);
    }
    try {
      const { skewMs, rttMs } = skew;
      if (Math.abs(skewMs) > o.maxClockSkewMs + rttMs / 2) {
        throw new VestaError(
          'CLOCK_OUT_OF_SYNC',
          `this host's clock is ${skewMs} ms ${skewMs > 0 ? 'ahead of' : 'behind'} PostgreSQL's; more than the ${o.maxClockSkewMs} ms allowed`,
          { details: { skewMs, maxClockSkewMs: o.maxClockSkewMs } },
        );
      }
      return await this.#claim({ db, key, stableKey, instance: randomUUID(), request });
    } catch (error) {
      await db.end().catch(() => undefined);
      if (VestaError.is(error, 'MACHINE_ID_EXHAUSTED')) this.#stats.refused++;
      throw unavailable(o.url, error);
    }
  }

  /** This host's clock minus the database's (ms), at the middle of a statement's round trip. */
  async #clockSkew(db: pg.Pool): Promise<{ skewMs: number; rttMs: number }> {
    const { time } = this.#options;
    await this.#table.now(db); // connects first: the round trip measured is one statement's
    const before = time.now();
    const mono = time.monotonic();
    const dbMs = await this.#table.now(db);
    const after = time.now();
    const rttMs = time.monotonic() - mono;
    return { skewMs: Math.round((before + after) / 2 - dbMs), rttMs };
  }

  /** Rounds of read, plan (see planLeaseClaim) and claim, until a claim wins or nothing is left. */
  async #claim(c: Claimant): Promise<PostgresMachineIdLease> {
    const o = this.#options;
    const table = this.#table;
    const { min, max } = c.request.range;
    await table.ensure(c.db);
    const eraStore = {
      readEra: () => table.readEra(c.db),
      createEra: (era: string) => table.createEra(c.db, era),
      openEra: (found: { era: string }) => table.openEra(c.db, found.era),
    };
    const enterEra = async (): Promise<string> =>
      (
        await enterLeaseEra(eraStore, o.eraWaitMs, o.time, (era) =>
          o.logger.warn(
            { table: this.#root, era, waitMs: o.eraWaitMs },
            'no allocation era in the PostgreSQL table (a new table, or its rows were lost): no machine id is handed out until every holder of the lost rows is fenced',
          ),
        )
      ).era;
    const ownerWaitUntil = o.time.monotonic() + o.ownerWaitMs;
    const skip = new Set<number>();
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const era = await enterEra();
      const rows = await table.readRows(c.db, min, max, c.key);
      const plan = planLeaseClaim({
        ...this.#snapshot(c, rows, skip),
        ownerWaitOver: o.time.monotonic() >= ownerWaitUntil,
      });
      if (plan.action === 'waitForOwner') {
        await sleepOn(o.time, Math.min(250, Math.max(10, o.refreshIntervalMs / 2)));
        continue;
      }
      if (plan.gaveUp !== undefined) {
        o.logger.warn(
          { machineId: plan.gaveUp, key: c.key },
          'the id of this key is still held by a live lease; taking another id',
        );
        skip.add(plan.gaveUp);
      }
      const byId = new Map(rows.map((r) => [r.machineId, r]));
      for (const candidate of plan.candidates) {
        const lease = await this.#take(c, era, candidate, byId.get(candidate.machineId));
        if (lease === undefined) continue;
        this.#count(candidate.kind);
        if (candidate.kind === 'reclaimed') {
          o.logger.warn(
            {
              machineId: candidate.machineId,
              previousOwner: candidate.record?.owner ?? null,
              idleMs: candidate.record?.idleMs,
            },
            'reclaimed the machine id of a dead owner',
          );
        }
        return lease;
      }
      if (plan.candidates.length === 0) {
        const live = rows.filter((r) => r.live && r.machineId >= min && r.machineId <= max).length;
        throw new VestaError(
          'MACHINE_ID_EXHAUSTED',
          `no machine id left in ${min}-${max} in ${this.#root}: ${live} live, the others used within the last ${o.reclaimAfterMs} ms`,
          { details: { min, max, live, reclaimAfterMs: o.reclaimAfterMs } },
        );
      }
    }
    throw new VestaError(
      'MACHINE_ID_EXHAUSTED',
      `lost the race for a machine id ${MAX_ROUNDS} times in ${min}-${max}`,
      { details: { min, max } },
    );
  }

  /** The claim snapshot of the rows read (the owner wait is added by the caller). */
  #snapshot(c: Claimant, rows: readonly IdRow[], skip: ReadonlySet<number>) {
    const { min, max } = c.request.range;
    const inRange = rows.filter((r) => r.machineId >= min && r.machineId <= max);
    // A key's own id: the row naming it last written (a key may name an older row it gave up).
    const own = c.stableKey
      ? rows.filter((r) => r.owner === c.key).sort((a, b) => b.updatedAtMs - a.updatedAtMs)[0]
          ?.machineId
      : undefined;
    const records = new Map<number, IdRecord>();
    for (const r of inRange) {
      if (!r.live && !skip.has(r.machineId)) {
        records.set(r.machineId, { machineId: r.machineId, owner: r.owner, idleMs: r.idleMs });
      }
    }
    return {
      range: c.request.range,
      live: new Set(inRange.filter((r) => r.live).map((r) => r.machineId)),
      used: new Set(inRange.map((r) => r.machineId)),
      skip,
      ownId: own,
      records,
      reclaimAfterMs: this.#options.reclaimAfterMs,
    };
  }

  #count(kind: ClaimKind): void {
    this.#stats[kind]++;
  }

  /** Tries one candidate; undefined when a concurrent start won it. */
  async #take(
    c: Claimant,
    era: string,
    candidate: ClaimCandidate,
    row: IdRow | undefined,
  ): Promise<PostgresMachineIdLease | undefined> {
    const o = this.#options;
    const { machineId } = candidate;
    const fence = new LeaseFence(o.time, o.fenceAfterMs);
    const sentAt = fence.sendTime();
    const floorMarkMs = row?.markMs ?? 0;
    const notBeforeMs = floorMarkMs === 0 ? 0 : floorMarkMs + leaseUnitMs(c.request.type);
    const markMs = fence.markToPublish(notBeforeMs + o.fenceAfterMs);
    const version = await this.#table.claim(
      c.db,
      era,
      machineId,
      row?.version,
      {
        owner: c.key,
        instance: c.instance,
        markMs,
        genMethod: c.request.genMethod,
        type: c.request.type,
      },
      o.fenceAfterMs,
    );
    if (version === undefined) return undefined;
    fence.confirm(markMs, sentAt);
    const lease = new PostgresMachineIdLease({
      ...this.#leaseBase(c, machineId, notBeforeMs, floorMarkMs, fence),
      stableKey: c.stableKey,
      instance: c.instance,
      era,
      confirmed: true,
    });
    const gapMs = notBeforeMs - o.clock();
    if (gapMs > o.maxClockWaitMs) {
      await lease.release();
      throw clockBehindMark(
        gapMs,
        floorMarkMs,
        machineId,
        o.maxClockWaitMs,
        'the time mark stored for',
      );
    }
    return lease;
  }

  #leaseBase(
    c: Pick<Claimant, 'db' | 'key' | 'request'>,
    machineId: number,
    notBeforeMs: number,
    floorMarkMs: number,
    fence: LeaseFence,
  ): Omit<PgLeaseStart, 'stableKey' | 'instance' | 'era' | 'confirmed'> {
    return {
      db: c.db,
      table: this.#table,
      options: this.#options,
      cache: this.#cache,
      machineId,
      key: c.key,
      genMethod: c.request.genMethod,
      type: c.request.type,
      notBeforeMs,
      floorMarkMs,
      fence,
    };
  }

  /** A start while PostgreSQL is unreachable: on the cached lease, if the fallback rule allows. */
  async #fromCache(
    db: pg.Pool,
    key: string,
    request: MachineIdRequest,
    cause: unknown,
  ): Promise<PostgresMachineIdLease> {
    const o = this.#options;
    const decision = cachedLeaseFallback({
      fallbackToCache: o.fallbackToCache,
      cache: this.#cache,
      key,
      root: this.#root,
      range: request.range,
      nowMs: o.clock(),
      unitMs: leaseUnitMs(request.type),
      reclaimAfterMs: o.reclaimAfterMs,
      fenceAfterMs: o.fenceAfterMs,
      maxClockSkewMs: o.maxClockSkewMs,
      maxClockWaitMs: o.maxClockWaitMs,
    });
    if (!decision.use) {
      await db.end().catch(() => undefined);
      if ('why' in decision) {
        throw new VestaError(
          'COORDINATOR_UNAVAILABLE',
          `PostgreSQL at ${new URL(o.url).host} is unreachable (${String(cause)}) and ${decision.why}`,
          { cause },
        );
      }
      const { gapMs, cached } = decision.clockBehind;
      throw clockBehindMark(
        gapMs,
        cached.markMs,
        cached.machineId,
        o.maxClockWaitMs,
        'the cached time mark of',
      );
    }
    const { cached, validUntilMs, notBeforeMs } = decision;
    o.logger.warn(
      { machineId: cached.machineId, validUntil: new Date(validUntilMs).toISOString() },
      'PostgreSQL is unreachable: starting on the machine id cached by the last good lease',
    );
    this.#stats.fromCache++;
    const fence = new LeaseFence(o.time, o.fenceAfterMs);
    fence.holdUntil(validUntilMs);
    return new PostgresMachineIdLease({
      ...this.#leaseBase({ db, key, request }, cached.machineId, notBeforeMs, cached.markMs, fence),
      stableKey: true,
      instance: randomUUID(),
      era: cached.era,
      confirmed: false,
    });
  }
}
