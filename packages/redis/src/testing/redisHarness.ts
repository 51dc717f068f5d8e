import { randomUUID } from 'node:crypto';
import { startRedisServer } from '@vesta/testkit';
import {
  defineMachineIdProviderHarness,
  type ConformanceLease,
  type MachineIdProviderHarness,
} from '@vesta/testkit/conformance';
import { leaseControls } from '../internal/leaseControls.js';
import { RedisAdmin } from '../RedisAdmin.js';
import type { RedisMachineIdLease } from '../RedisMachineIdLease.js';
import { RedisMachineIdProvider } from '../RedisMachineIdProvider.js';
import { resolveRedisMachineIdOptions } from '../RedisMachineIdOptions.js';

/** Short timings; generous connection deadlines (the suite must hold on a loaded machine). */
const FAST = {
  refreshIntervalMs: 100,
  fenceAfterMs: 400,
  leaseTtlMs: 600,
  reclaimAfterMs: 1200,
  ownerWaitMs: 1500,
  connectTimeoutMs: 15_000,
  operationTimeoutMs: 2000,
} as const;

const PROFILES = {
  fast: FAST,
  // Nobody may reclaim while Redis is down, and the live keys outlast the outage.
  outage: { ...FAST, leaseTtlMs: 20_000, reclaimAfterMs: 40_000, ownerWaitMs: 22_000 },
  // The holder issues for up to fenceAfterMs after its last confirmed renewal.
  dataLoss: {
    ...FAST,
    refreshIntervalMs: 500,
    fenceAfterMs: 6000,
    leaseTtlMs: 8000,
    reclaimAfterMs: 12_000,
    ownerWaitMs: 10_000,
    maxClockSkewMs: 500,
  },
} as const;

const url = (address: string): string => `redis://${address}`;

/** The conformance harness of {@link RedisMachineIdProvider} (testkit's contract). */
export const redisHarness: MachineIdProviderHarness = defineMachineIdProviderHarness({
  name: 'Redis',
  startCoordinator: () => startRedisServer(),
  namespace: () => `test-${randomUUID().slice(0, 8)}`,
  profiles: PROFILES,
  defaultEraWaitMs: (timings) =>
    resolveRedisMachineIdOptions({ url: 'redis://127.0.0.1:1', ...timings }).eraWaitMs,
  createProvider: (address, prefix, settings) =>
    new RedisMachineIdProvider({ url: url(address), prefix, ...settings }),
  abandon(lease: ConformanceLease) {
    const control = leaseControls.get(lease as RedisMachineIdLease);
    if (control === undefined) throw new Error(`lease of ${lease.machineId} has no control`);
    control.abandon();
  },
  admin: (address, namespace) => new RedisAdmin({ url: url(address), prefix: namespace }),
});
