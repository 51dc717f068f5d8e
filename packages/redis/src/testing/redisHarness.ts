import { randomUUID } from 'node:crypto';
import { startRedisServer } from '@vesta/testkit';
import { Redis } from 'ioredis';
import {
  conformanceProfiles,
  defineMachineIdProviderHarness,
  type MachineIdProviderHarness,
} from '@vesta/testkit/conformance';
import { RedisAdmin } from '../redisCoordinator.js';
import { RedisMachineIdProvider } from '../RedisMachineIdProvider.js';
import { redisOptions } from '../RedisMachineIdOptions.js';

/** Generous connection deadlines: the suite must hold on a loaded machine. */
const PROFILES = conformanceProfiles(
  { connectTimeoutMs: 15_000, operationTimeoutMs: 2000 },
  {
    fast: { leaseTtlMs: 600 },
    // The live keys outlast the outage.
    outage: { leaseTtlMs: 20_000, ownerWaitMs: 22_000 },
    dataLoss: { leaseTtlMs: 8000, ownerWaitMs: 10_000 },
  },
);

const url = (address: string): string => `redis://${address}`;

/** The conformance harness of {@link RedisMachineIdProvider} (testkit's contract). */
export const redisHarness: MachineIdProviderHarness = defineMachineIdProviderHarness({
  name: 'Redis',
  startCoordinator: () => startRedisServer(),
  namespace: () => `test-${randomUUID().slice(0, 8)}`,
  profiles: PROFILES,
  defaultEraWaitMs: (timings) =>
    redisOptions.resolve({ url: 'redis://127.0.0.1:1', ...timings }).eraWaitMs,
  createProvider: (address, prefix, settings) =>
    new RedisMachineIdProvider({ url: url(address), prefix, ...settings }),
  admin: (address, namespace) => new RedisAdmin({ url: url(address), prefix: namespace }),
  dump: async (address, prefix) => {
    const redis = new Redis(url(address));
    try {
      const keys = (await redis.keys(`{${prefix}}:*`)).sort();
      return await Promise.all(
        keys.map(async (key) => {
          const type = await redis.type(key);
          const value =
            type === 'hash'
              ? await redis.hgetall(key)
              : type === 'set'
                ? (await redis.smembers(key)).sort()
                : type === 'list'
                  ? await redis.lrange(key, 0, -1)
                  : await redis.get(key);
          return `${key} ${type} ${JSON.stringify(value)}`;
        }),
      );
    } finally {
      redis.disconnect();
    }
  },
});
