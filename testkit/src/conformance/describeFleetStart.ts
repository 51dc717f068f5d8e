import { performance } from 'node:perf_hooks';
import { silentLogger, VestaError, type MachineIdProvider } from '@vesta/core';
import { createEmbeddedIdService, type EmbeddedIdService } from '@vesta/embedded';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceAllocation, ConformanceCoordinator } from './MachineIdProviderHarness.js';

/** Starts at once: more than the embedded range holds (0-923, 924 ids). */
const STARTS = 1000;
const IDS = 924;
/**
 * The bound on all 924 assignments and on the 76 refusals: 10 s (issue 17, item 7) when measuring
 * (`VESTA_FLEET_FIGURES=1`, the file run alone, as BENCHMARKS.md says); in the suite, where other
 * files share the 2 cores, a guard against a start-up that hangs or crawls. The round trips, which
 * no load changes, are bound in both.
 */
const MEASURING = process.env['VESTA_FLEET_FIGURES'] === '1';
const WITHIN_MS = MEASURING ? 10_000 : 60_000;
/** The bound on the mean store round trips of a claim (reads and claim writes). */
const MEAN_ROUND_TRIPS = 5;

/** A provider of one start, counting the store round trips its claims cost. */
export interface FleetProvider extends MachineIdProvider {
  /** Each claim round's read and each claim write so far. */
  readonly roundTrips: number;
}

/** What {@link describeFleetStart} needs of a coordinator. */
export interface FleetStartHarness {
  /** The coordinator's name in test titles. */
  readonly name: string;
  /** Starts a coordinator of the test's own on a free port of 127.0.0.1. */
  startCoordinator(): Promise<ConformanceCoordinator>;
  /** A namespace nobody used yet. */
  namespace(): string;
  /**
   * The provider of one start, with the key given, the provider's default timings but no era wait
   * (the namespace is new: the wait would be one fixed delay before any claim, nothing a fleet's
   * size changes), and its own client connection (or a bounded pool the harness shares in this
   * process).
   */
  createProvider(address: string, namespace: string, key: string): FleetProvider;
  /** The admin's listing of a namespace. */
  list(address: string, namespace: string): Promise<readonly ConformanceAllocation[]>;
  /** Releases what the harness shares (a pool), once every lease closed. */
  dispose?(): Promise<void>;
  /** Whether the test runs (an opt-in store says why it is off by default). @default true */
  readonly enabled?: boolean;
}

/** What one start did; times in ms since all were let go. */
interface StartOutcome {
  readonly service: EmbeddedIdService | undefined;
  readonly machineId: number | undefined;
  readonly code: string | undefined;
  /** When its claim was answered: the lease granted, or refused (the service starts after). */
  readonly atMs: number;
  readonly roundTrips: number;
}

/**
 * Declares the fleet-start test (issue 17, item 7): 1,000 embedded instances start at once against
 * one store, each with its own key and host-lock scope, in this process (the lease code is async
 * I/O, each start on its own client). All 924 ids of the embedded range are assigned within 10 s,
 * the other 76 starts are refused MACHINE_ID_EXHAUSTED within the same 10 s, a claim costs at most
 * 5 store round trips on average, and no id has two owners. With `VESTA_FLEET_FIGURES=1` it prints
 * its figures (BENCHMARKS.md).
 */
export function describeFleetStart(harness: FleetStartHarness): void {
  describe.runIf(harness.enabled ?? true)(`${harness.name}: a fleet starting at once`, () => {
    let coordinator: ConformanceCoordinator | undefined;
    const services: EmbeddedIdService[] = [];

    beforeAll(async () => {
      coordinator = await harness.startCoordinator();
    }, 120_000);
    afterAll(async () => {
      await Promise.all(services.map((s) => s.close().catch(() => undefined)));
      await harness.dispose?.();
      await coordinator?.dispose();
    }, 120_000);

    it(`assigns all ${IDS} ids to ${STARTS} concurrent starts within ${WITHIN_MS / 1000} s at ${MEAN_ROUND_TRIPS} store round trips a start or fewer, refuses the rest MACHINE_ID_EXHAUSTED as fast, and no id has two owners`, async () => {
      if (coordinator === undefined) throw new Error(`${harness.name} is not started`);
      const { address } = coordinator;
      const namespace = harness.namespace();
      const scope = `${process.env['VESTA_HOST_LOCK_SCOPE'] ?? 'default'}/fleet-${harness.name}`;
      const providers = Array.from({ length: STARTS }, (_, i) =>
        harness.createProvider(address, namespace, `fleet-${i}`),
      );
      const startedAt = performance.now();
      const outcomes = await Promise.all(
        providers.map(async (provider, i): Promise<StartOutcome> => {
          let machineId: number | undefined;
          let answeredAt: number | undefined;
          const answered = (): number => (answeredAt ??= performance.now() - startedAt);
          try {
            const service = await createEmbeddedIdService({
              machineIdProvider: {
                acquire: async (request) => {
                  try {
                    const lease = await provider.acquire(request);
                    machineId = lease.machineId;
                    return lease;
                  } finally {
                    answered();
                  }
                },
              },
              logger: silentLogger,
              // Each instance stands for another host: only the store keeps them apart.
              hostLockScope: `${scope}/${i}`,
            });
            services.push(service);
            const atMs = answered();
            return { service, machineId, code: undefined, atMs, roundTrips: provider.roundTrips };
          } catch (error) {
            const atMs = answered();
            const code = VestaError.is(error) ? error.code : String(error);
            if (MEASURING && code !== 'MACHINE_ID_EXHAUSTED') {
              console.log(String(error));
            }
            return { service: undefined, machineId, code, atMs, roundTrips: provider.roundTrips };
          }
        }),
      );

      const started = outcomes.filter((o) => o.service !== undefined);
      const refused = outcomes.filter((o) => o.service === undefined);
      const trips = outcomes.map((o) => o.roundTrips);
      const figures = {
        store: harness.name,
        starts: STARTS,
        assigned: started.length,
        allAssignedMs: Math.round(Math.max(...started.map((o) => o.atMs))),
        allStartedMs: Math.round(performance.now() - startedAt),
        refused: refused.length,
        allRefusedMs: Math.round(Math.max(...refused.map((o) => o.atMs))),
        meanRoundTrips: Number((trips.reduce((a, b) => a + b, 0) / STARTS).toFixed(2)),
        meanRoundTripsAssigned: Number(
          (started.reduce((a, o) => a + o.roundTrips, 0) / started.length).toFixed(2),
        ),
        maxRoundTrips: Math.max(...trips),
      };
      if (MEASURING) console.log(JSON.stringify(figures));

      expect(refused.map((o) => o.code)).toEqual(Array(STARTS - IDS).fill('MACHINE_ID_EXHAUSTED'));
      expect(new Set(started.map((o) => o.machineId)).size).toBe(IDS);

      // The store agrees: every id of the range held live, by the one start that was told so.
      const held = new Map(
        outcomes.flatMap((o, i) => (o.service === undefined ? [] : [[o.machineId, `fleet-${i}`]])),
      );
      const listed = (await harness.list(address, namespace)).filter((a) => a.alive);
      expect(listed.length).toBe(IDS);
      for (const a of listed) expect(a.owner).toBe(held.get(a.machineId));

      expect(figures.meanRoundTrips).toBeLessThanOrEqual(MEAN_ROUND_TRIPS);
      expect(figures.allAssignedMs).toBeLessThan(WITHIN_MS);
      expect(figures.allRefusedMs).toBeLessThan(WITHIN_MS);
    }, 120_000);
  });
}
