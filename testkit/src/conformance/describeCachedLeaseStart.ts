import type { LeaseHistory } from '@vesta/lease';
import { afterAll, describe, expect, it } from 'vitest';
import { codeOfAsync } from '../codeOfAsync.js';
import { eventually } from '../eventually.js';
import { machineIdRequest } from '../machineIdRequest.js';
import { TestResources } from '../TestResources.js';
import type { ConformanceAllocation, ConformanceLease } from './MachineIdProviderHarness.js';

/** A provider that keeps its last lease in its state dir and may start on it. */
export interface CachingProvider {
  acquire(
    request: ReturnType<typeof machineIdRequest>,
  ): Promise<ConformanceLease & { readonly key: string }>;
  readonly stats: { readonly fromCache: number };
}

/**
 * The options {@link describeCachedLeaseStart} sets: a reclaim delay of 10 s and a clock skew of
 * 100 ms (the cache stays good for reclaim − fence − skew after its confirmation), the state dir
 * when it keeps one, and short connection deadlines when the address refuses every connection.
 */
export interface CachedStartSettings {
  readonly reclaimAfterMs: number;
  readonly maxClockSkewMs: number;
  readonly stateDir?: string;
  readonly connectTimeoutMs?: number;
  readonly operationTimeoutMs?: number;
}

const CACHE_FRIENDLY = { reclaimAfterMs: 10_000, maxClockSkewMs: 100 } as const;
const CUT_OFF = { ...CACHE_FRIENDLY, connectTimeoutMs: 300, operationTimeoutMs: 300 } as const;

/** What {@link describeCachedLeaseStart} needs of a provider whose lease survives in its state dir. */
export interface CachedLeaseStartHarness {
  /** The coordinator's name in test titles. */
  readonly name: string;
  /** The coordinator's `host:port` (called in the tests, so a global setup's value will do). */
  address(): string;
  /** A namespace nobody used yet. */
  namespace(): string;
  /**
   * A provider at `address` (the coordinator, or a proxy refusing every connection) in `namespace`
   * with no era wait and `settings` spread into its options.
   */
  createProvider(
    address: string,
    namespace: string,
    settings: CachedStartSettings,
  ): CachingProvider;
  /** The admin's list of a namespace. */
  list(namespace: string): Promise<readonly ConformanceAllocation[]>;
  /** The admin's read of a namespace's lease journal. */
  history(namespace: string): Promise<LeaseHistory>;
}

/**
 * Declares the cached-start behaviour of a provider: it starts on the lease cached in its state
 * dir while the coordinator is unreachable and confirms it once it is back; with nothing cached
 * it refuses with COORDINATOR_UNAVAILABLE. Call it at the top level of an `*.int.spec.ts` file.
 */
export function describeCachedLeaseStart(harness: CachedLeaseStartHarness): void {
  describe(`${harness.name} machine-id provider started on its cached lease`, () => {
    const resources = new TestResources();
    afterAll(() => resources.dispose());
    const request = machineIdRequest();

    it(`starts on the cached lease while ${harness.name} is unreachable, and confirms it once it is back`, async () => {
      const namespace = harness.namespace();
      const stateDir = resources.tempDir('vesta-cached-state-');
      const first = await harness
        .createProvider(harness.address(), namespace, { ...CACHE_FRIENDLY, stateDir })
        .acquire(request);
      expect(await eventually(() => first.stats.renewals > 0)).toBe(true);
      await first.release?.();

      const proxy = await resources.proxy(harness.address());
      proxy.refuse();
      const cached = harness.createProvider(proxy.address, namespace, { ...CUT_OFF, stateDir });
      const startedAtMs = Date.now();
      const lease = await cached.acquire(request);
      expect(lease.machineId).toBe(first.machineId);
      expect(cached.stats.fromCache).toBe(1);
      expect(lease.valid).toBe(true);
      expect(lease.stats.renewals).toBe(0);

      // Nothing could be journaled while the store was unreachable.
      expect((await harness.history(namespace)).entries.map((e) => e.event)).toEqual([
        'claimed',
        'released',
      ]);
      const forwardedAtMs = Date.now();
      proxy.forward();
      expect(await eventually(() => lease.stats.renewals > 0, 20_000)).toBe(true);
      expect(lease.valid).toBe(true);
      const [row] = await harness.list(namespace);
      expect(row).toMatchObject({ machineId: first.machineId, owner: first.key, alive: true });
      await lease.release?.();
      // Confirmed, the cached start journaled its claim, from the time it started on the cache.
      const { entries, tenures } = await harness.history(namespace);
      expect(entries.map((e) => [e.event, e.machineId])).toEqual([
        ['claimed', first.machineId],
        ['released', first.machineId],
        ['claimed', first.machineId],
        ['released', first.machineId],
      ]);
      const late = entries[2]?.atMs ?? Number.NaN;
      expect(late).toBeGreaterThanOrEqual(startedAtMs);
      expect(late).toBeLessThan(forwardedAtMs);
      expect(tenures.map((t) => t.ended)).toEqual(['released', 'released']);
    });

    it(`refuses to start with COORDINATOR_UNAVAILABLE when ${harness.name} is unreachable and nothing is cached`, async () => {
      const proxy = await resources.proxy(harness.address());
      proxy.refuse();
      const p = harness.createProvider(proxy.address, harness.namespace(), CUT_OFF);
      expect(await codeOfAsync(() => p.acquire(request))).toBe('COORDINATOR_UNAVAILABLE');
    });
  });
}
