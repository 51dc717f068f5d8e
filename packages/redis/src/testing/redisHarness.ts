import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { startRedisServer } from '@vesta/testkit';
import type {
  ConformanceLease,
  ConformanceProfile,
  MachineIdProviderHarness,
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

const defaultEraWaitMs = (profile: ConformanceProfile): number =>
  resolveRedisMachineIdOptions({ url: 'redis://127.0.0.1:1', ...PROFILES[profile] }).eraWaitMs;

/** The conformance harness of {@link RedisMachineIdProvider} (testkit's contract). */
export const redisHarness: MachineIdProviderHarness = {
  name: 'Redis',
  async startCoordinator() {
    const server = await startRedisServer();
    return {
      address: server.address,
      stop: (options) => server.stop(options),
      restart: () => server.restart(),
      async wipe() {
        const client = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
        try {
          await client.connect();
          await client.flushall();
        } finally {
          client.disconnect();
        }
      },
      dispose: () => server.dispose(),
    };
  },
  namespace: () => `test-${randomUUID().slice(0, 8)}`,
  createProvider(o) {
    return new RedisMachineIdProvider({
      url: url(o.address),
      prefix: o.namespace,
      ...PROFILES[o.profile],
      eraWaitMs: o.eraWait === 'default' ? defaultEraWaitMs(o.profile) : 0,
      ...(o.key === undefined ? {} : { key: o.key }),
      ...(o.stateDir === undefined ? {} : { stateDir: o.stateDir }),
      ...(o.time === undefined ? {} : { time: o.time }),
      ...(o.logger === undefined ? {} : { logger: o.logger }),
    });
  },
  timings: (profile) => ({
    fenceAfterMs: PROFILES[profile].fenceAfterMs,
    reclaimAfterMs: PROFILES[profile].reclaimAfterMs,
    eraWaitMs: defaultEraWaitMs(profile),
  }),
  abandon(lease: ConformanceLease) {
    const control = leaseControls.get(lease as RedisMachineIdLease);
    if (control === undefined) throw new Error(`lease of ${lease.machineId} has no control`);
    control.abandon();
  },
  admin: (address, namespace) => new RedisAdmin({ url: url(address), prefix: namespace }),
};
