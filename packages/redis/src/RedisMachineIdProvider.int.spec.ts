import { silentLogger } from '@vesta/core';
import {
  codeOfAsync,
  freePort,
  machineIdRequest,
  startRedisServer,
  type RedisServer,
} from '@vesta/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { RedisAdmin } from './RedisAdmin.js';
import { RedisMachineIdProvider } from './RedisMachineIdProvider.js';

const request = machineIdRequest();

let redis: RedisServer | undefined;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.dispose();
});
const server = (): RedisServer => {
  if (redis === undefined) throw new Error('redis-server is not started');
  return redis;
};

describe('RedisMachineIdProvider start-up refusals', () => {
  it('refuses with COORDINATOR_UNAVAILABLE when nothing answers at the url', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const provider = new RedisMachineIdProvider({
      url,
      connectTimeoutMs: 500,
      logger: silentLogger,
    });
    expect(await codeOfAsync(() => provider.acquire(request))).toBe('COORDINATOR_UNAVAILABLE');
  });

  it('refuses with CLOCK_OUT_OF_SYNC when this host’s clock is further from Redis’s than allowed', async () => {
    const provider = new RedisMachineIdProvider({
      url: server().url,
      prefix: 'skewed',
      clock: () => Date.now() + 60_000,
      maxClockSkewMs: 1000,
      eraWaitMs: 0,
      logger: silentLogger,
    });
    expect(await codeOfAsync(() => provider.acquire(request))).toBe('CLOCK_OUT_OF_SYNC');
  });

  it('refuses with COORDINATOR_UNAVAILABLE when fewer replicas than minReplicas acknowledge the claim', async () => {
    const provider = new RedisMachineIdProvider({
      url: server().url,
      prefix: 'replicated',
      minReplicas: 1,
      operationTimeoutMs: 300,
      eraWaitMs: 0,
      logger: silentLogger,
    });
    expect(await codeOfAsync(() => provider.acquire(request))).toBe('COORDINATOR_UNAVAILABLE');
  });

  it('refuses with COORDINATOR_UNAVAILABLE when the claim cannot be journaled, handing out no lease', async () => {
    const prefix = 'unjournaled';
    const redis = new Redis(server().url);
    try {
      // Not a list: the journal's append fails after the claim won.
      await redis.set(`{${prefix}}:history`, 'not a journal');
      const provider = new RedisMachineIdProvider({
        url: server().url,
        prefix,
        key: 'unjournaled-1',
        eraWaitMs: 0,
        logger: silentLogger,
      });
      expect(await codeOfAsync(() => provider.acquire(request))).toBe('COORDINATOR_UNAVAILABLE');
      // The claim is left to its live key's expiry, as after any failed start.
      const admin = new RedisAdmin({ url: server().url, prefix });
      expect((await admin.list()).map((r) => r.owner)).toEqual(['unjournaled-1']);
      expect(await redis.get(`{${prefix}}:history`)).toBe('not a journal');
    } finally {
      redis.disconnect();
    }
  });
});
