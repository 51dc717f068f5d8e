import { silentLogger } from '@vesta/core';
import { machineIdRequest, startRedisServer, type RedisServer } from '@vesta/testkit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { redisOptions, type ResolvedRedisMachineIdOptions } from './RedisMachineIdOptions.js';
import { RedisKeyspace } from './RedisKeyspace.js';

let redis: RedisServer | undefined;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.dispose();
});

it('claims under an era only once it is opened: a created era has no open field, and an older store wrote open 0', async () => {
  const url = redis?.url ?? '';
  const ks = new RedisKeyspace(
    redisOptions.resolve({
      url,
      prefix: 'era-encoding',
      logger: silentLogger,
    }) as ResolvedRedisMachineIdOptions,
  );
  const raw = new Redis(url);
  try {
    await ks.connect();
    const claimant = {
      key: 'k',
      stableKey: false,
      instance: 'i1',
      request: machineIdRequest(),
    };
    expect(await ks.eraStore.createEra('e1')).toBe(true);
    expect(await ks.eraStore.createEra('e2')).toBe(false);
    expect(await raw.hgetall('{era-encoding}:era')).toEqual({ token: 'e1' });
    expect(await ks.eraStore.readEra()).toEqual({ era: 'e1', open: false });
    expect(await ks.claim('e1', 3, 0, claimant, 1000)).toBe(false);

    await raw.hset('{era-encoding}:era', 'open', '0');
    expect(await ks.eraStore.readEra()).toEqual({ era: 'e1', open: false });
    expect(await ks.claim('e1', 3, 0, claimant, 1000)).toBe(false);

    await ks.eraStore.openEra({ era: 'e2', open: false });
    expect(await ks.eraStore.readEra()).toEqual({ era: 'e1', open: false });
    await ks.eraStore.openEra({ era: 'e1', open: false });
    expect(await ks.eraStore.readEra()).toEqual({ era: 'e1', open: true });
    expect(await ks.claim('e2', 3, 0, claimant, 1000)).toBe(false);
    expect(await ks.claim('e1', 3, 0, claimant, 1000)).toBe(true);
    expect(await ks.claim('e1', 3, 0, { ...claimant, key: 'k2', instance: 'i2' }, 1000)).toBe(
      false,
    );
  } finally {
    ks.close();
    raw.disconnect();
  }
});
