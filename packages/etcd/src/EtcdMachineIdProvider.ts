import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { VestaError, type MachineIdProvider, type MachineIdRequest } from '@vesta/core';
import {
  cachedLeaseFallback,
  clockBehindMark,
  enterLeaseEra,
  LeaseCache,
  LeaseFence,
  leaseUnitMs,
  planLeaseClaim,
  sleepOn,
  type ClaimCandidate,
  type ClaimKind,
  type IdRecord,
} from '@vesta/core/kit';
import { EtcdMachineIdLease, type EtcdLeaseStart } from './EtcdMachineIdLease.js';
import {
  resolveEtcdMachineIdOptions,
  type EtcdMachineIdOptions,
  type ResolvedEtcdMachineIdOptions,
} from './EtcdMachineIdOptions.js';
import {
  EtcdStore,
  liveTtlMs,
  type EtcdEra,
  type EtcdIdRow,
  type HeldLeases,
} from './etcd/EtcdStore.js';

const MAX_ROUNDS = 50;

/** What this provider's acquisitions did: a read-only snapshot (metrics, figures). */
export interface EtcdMachineIdStats {
  /** Ids taken that had never been used, or were released. */
  readonly fresh: number;
  /** Ids given back to the key that held them before. */
  readonly reused: number;
  /** Dead owners' ids taken over after the reclaim delay. */
  readonly reclaimed: number;
  /** Start-ups refused with MACHINE_ID_EXHAUSTED. */
  readonly refused: number;
  /** Start-ups on the cached lease while etcd was down. */
  readonly fromCache: number;
}

/** Who claims: the same for every id tried in one acquisition. */
interface Claimant {
  readonly store: EtcdStore;
  readonly key: string;
  readonly stableKey: boolean;
  readonly instance: string;
  readonly request: MachineIdRequest;
  /** The etcd leases of this acquisition, granted once the era is open (kept alive between rounds). */
  readonly leases: { live?: string; recent?: string };
}

/**
 * Leases machine ids from etcd: unique among live instances (a live key under the holder's etcd
 * lease, claimed in a transaction only while absent), the same id for the same key across
 * restarts, dead owners' ids reclaimed once etcd has expired their reclaim lease, time marks
 * carried over, and no id handed out from an etcd that lost its keys before every holder of the
 * lost keys has fenced itself. See the package README.
 *
 * @example
 * const ids = await createEmbeddedIdService({
 *   machineIdProvider: new EtcdMachineIdProvider({ endpoints: 'etcd1:2379,etcd2:2379', key: 'orders-7' }),
 * });
 */
export class EtcdMachineIdProvider implements MachineIdProvider {
  readonly #options: ResolvedEtcdMachineIdOptions;
  readonly #cache: LeaseCache | undefined;
  readonly #stats: { -readonly [K in keyof EtcdMachineIdStats]: number } = {
    fresh: 0,
    reused: 0,
    reclaimed: 0,
    refused: 0,
    fromCache: 0,
  };

  /** Validates the options (INVALID_OPTIONS); connects only on {@link acquire}. */
  constructor(options: EtcdMachineIdOptions) {
    this.#options = resolveEtcdMachineIdOptions(options);
    this.#cache =
      this.#options.stateDir === undefined
        ? undefined
        : new LeaseCache(this.#options.stateDir, 'etcd', this.#options.root);
  }

  /** What this provider's acquisitions did so far (a frozen snapshot). */
  get stats(): EtcdMachineIdStats {
    return Object.freeze({ ...this.#stats });
  }

  async acquire(request: MachineIdRequest): Promise<EtcdMachineIdLease> {
    const o = this.#options;
    const stableKey = o.key !== undefined || this.#cache !== undefined;
    const key = o.key ?? this.#cache?.key() ?? `${hostname()}/${process.pid}/${randomUUID()}`;
    const store = new EtcdStore(o);
    try {
      await store.readEra();
    } catch (error) {
      return this.#fromCache(store, key, request, error);
    }
    const c: Claimant = { store, key, stableKey, instance: randomUUID(), request, leases: {} };
    try {
      return await this.#claim(c);
    } catch (error) {
      const { live, recent } = c.leases;
      await Promise.all([live, recent].map((l) => l && store.revoke(l))).catch(() => undefined);
      store.close();
      if (VestaError.is(error, 'MACHINE_ID_EXHAUSTED')) this.#stats.refused++;
      if (VestaError.is(error)) throw error;
      throw new VestaError(
        'COORDINATOR_UNAVAILABLE',
        `could not lease a machine id from etcd at ${o.hosts.join(',')}: ${String(error)}`,
        { cause: error },
      );
    }
  }

  /** Rounds of read, plan (see planLeaseClaim) and claim, until a claim wins or nothing is left. */
  async #claim(c: Claimant): Promise<EtcdMachineIdLease> {
    const o = this.#options;
    const { min, max } = c.request.range;
    const ownerWaitUntil = o.time.monotonic() + o.ownerWaitMs;
    const skip = new Set<number>();
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const era = await enterLeaseEra(c.store, o.eraWaitMs, o.time, (token) =>
        o.logger.warn(
          { root: o.root, era: token, waitMs: o.eraWaitMs },
          'no allocation era in etcd (a new prefix, or etcd lost its data): no machine id is handed out until every holder of the lost keys is fenced',
        ),
      );
      const leases = await this.#leases(c);
      const rows = await c.store.readIds();
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
        const lease = await this.#take(c, era, leases, candidate, byId.get(candidate.machineId));
        if (lease === undefined) continue;
        this.#count(candidate.kind);
        if (candidate.kind === 'reclaimed') {
          o.logger.warn(
            { machineId: candidate.machineId, previousOwner: candidate.record?.owner ?? null },
            'reclaimed the machine id of a dead owner',
          );
        }
        return lease;
      }
      if (plan.candidates.length === 0) {
        const live = rows.filter((r) => r.live && r.machineId >= min && r.machineId <= max).length;
        throw new VestaError(
          'MACHINE_ID_EXHAUSTED',
          `no machine id left in ${min}-${max} under ${o.root}: ${live} live, the others used within the last ${o.reclaimAfterMs} ms`,
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

  /**
   * The claim snapshot of the rows read. etcd tells no ages, only whether the reclaim lease of an
   * id has expired: an id without it counts as idle past the delay, one with it as just used.
   */
  #snapshot(c: Claimant, rows: readonly EtcdIdRow[], skip: ReadonlySet<number>) {
    const { min, max } = c.request.range;
    const { reclaimAfterMs } = this.#options;
    const inRange = rows.filter((r) => r.machineId >= min && r.machineId <= max);
    const own = c.stableKey
      ? rows
          .filter((r) => r.data?.owner === c.key)
          .sort((a, b) => Number(BigInt(b.modRevision) - BigInt(a.modRevision)))[0]?.machineId
      : undefined;
    const records = new Map<number, IdRecord>();
    for (const r of inRange) {
      if (!r.live && !skip.has(r.machineId) && r.data !== undefined) {
        records.set(r.machineId, {
          machineId: r.machineId,
          owner: r.data.owner,
          idleMs: r.recent ? 0 : reclaimAfterMs + 1,
        });
      }
    }
    return {
      range: c.request.range,
      live: new Set(inRange.filter((r) => r.live).map((r) => r.machineId)),
      used: new Set(inRange.map((r) => r.machineId)),
      skip,
      ownId: own,
      records,
      reclaimAfterMs,
    };
  }

  /** The acquisition's live and reclaim leases: kept alive, or granted when missing or expired. */
  async #leases(c: Claimant): Promise<HeldLeases> {
    const o = this.#options;
    const keep = async (id: string | undefined, ttlMs: number): Promise<string> =>
      id !== undefined && (await c.store.keepAlive(id)) ? id : c.store.grant(ttlMs);
    const [live, recent] = await Promise.all([
      keep(c.leases.live, liveTtlMs(o.fenceAfterMs)),
      keep(c.leases.recent, o.reclaimAfterMs),
    ]);
    c.leases.live = live;
    c.leases.recent = recent;
    return { live, recent };
  }

  #count(kind: ClaimKind): void {
    this.#stats[kind]++;
  }

  /** Tries one candidate; undefined when a concurrent start won it. */
  async #take(
    c: Claimant,
    era: EtcdEra,
    leases: HeldLeases,
    candidate: ClaimCandidate,
    row: EtcdIdRow | undefined,
  ): Promise<EtcdMachineIdLease | undefined> {
    const o = this.#options;
    const { machineId } = candidate;
    const fence = new LeaseFence(o.time, o.fenceAfterMs);
    const sentAt = fence.sendTime();
    const floorMarkMs = row?.data?.markMs ?? 0;
    const notBeforeMs = floorMarkMs === 0 ? 0 : floorMarkMs + leaseUnitMs(c.request.type);
    const markMs = fence.markToPublish(notBeforeMs + o.fenceAfterMs);
    const written = await c.store.claim(
      era,
      machineId,
      row?.modRevision,
      candidate.kind === 'reclaimed',
      {
        owner: c.key,
        instance: c.instance,
        markMs,
        genMethod: c.request.genMethod,
        type: c.request.type,
      },
      leases,
      c.instance,
    );
    if (written === undefined) return undefined;
    fence.confirm(markMs, sentAt);
    const lease = new EtcdMachineIdLease({
      ...this.#leaseBase(c, machineId, notBeforeMs, floorMarkMs, fence),
      stableKey: c.stableKey,
      instance: c.instance,
      era,
      cachedEra: undefined,
      written,
      leases,
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
    c: Pick<Claimant, 'store' | 'key' | 'request'>,
    machineId: number,
    notBeforeMs: number,
    floorMarkMs: number,
    fence: LeaseFence,
  ): Omit<EtcdLeaseStart, 'stableKey' | 'instance' | 'era' | 'cachedEra' | 'written' | 'leases'> {
    return {
      store: c.store,
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

  /** A start while etcd is unreachable: on the cached lease, if the fallback rule allows. */
  #fromCache(
    store: EtcdStore,
    key: string,
    request: MachineIdRequest,
    cause: unknown,
  ): EtcdMachineIdLease {
    const o = this.#options;
    const decision = cachedLeaseFallback({
      fallbackToCache: o.fallbackToCache,
      cache: this.#cache,
      key,
      root: o.root,
      range: request.range,
      nowMs: o.clock(),
      unitMs: leaseUnitMs(request.type),
      reclaimAfterMs: o.reclaimAfterMs,
      fenceAfterMs: o.fenceAfterMs,
      maxClockSkewMs: o.maxClockSkewMs,
      maxClockWaitMs: o.maxClockWaitMs,
    });
    if (!decision.use) {
      store.close();
      if ('why' in decision) {
        throw new VestaError(
          'COORDINATOR_UNAVAILABLE',
          `etcd at ${o.hosts.join(',')} is unreachable (${String(cause)}) and ${decision.why}`,
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
      'etcd is unreachable: starting on the machine id cached by the last good lease',
    );
    this.#stats.fromCache++;
    const fence = new LeaseFence(o.time, o.fenceAfterMs);
    fence.holdUntil(validUntilMs);
    return new EtcdMachineIdLease({
      ...this.#leaseBase(
        { store, key, request },
        cached.machineId,
        notBeforeMs,
        cached.markMs,
        fence,
      ),
      stableKey: true,
      instance: randomUUID(),
      era: undefined,
      cachedEra: cached.era,
      written: undefined,
      leases: undefined,
    });
  }
}
