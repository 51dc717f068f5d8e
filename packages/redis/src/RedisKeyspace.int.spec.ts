import { silentLogger } from '@vesta/core';
import {
  eventually,
  machineIdRequest,
  startRedisSentinel,
  startRedisServer,
  startTcpProxy,
  type RedisServer,
} from '@vesta/testkit';
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

it('reconnects without carrying a request over: a renewal after an abandoned WAIT is not queued behind it', async () => {
  const url = redis?.url ?? '';
  const o = { url, prefix: 'reconnect', logger: silentLogger, operationTimeoutMs: 2000 };
  const ks = new RedisKeyspace(redisOptions.resolve(o) as ResolvedRedisMachineIdOptions);
  const raw = new Redis(url);
  try {
    await ks.connect();
    // No replica: WAIT blocks its whole timeout, as a renewal's does while no replica is online.
    const abandoned = ks.run((r) => r.wait(1, 5000)).catch(String);
    const waiting = async () => /cmd=wait/.test(String(await raw.client('LIST')));
    expect(await eventually(waiting)).toBe(true);
    ks.reconnect();
    expect(await abandoned).toMatch(/Connection is closed/);
    expect(await ks.run((r) => r.ping())).toBe('PONG');
  } finally {
    ks.close();
    raw.disconnect();
  }
});

it('reconnects while it asks Sentinel for the primary: the next request is answered', async () => {
  const sentinel = await startRedisSentinel({ masterPort: redis?.port ?? 0 });
  const proxy = await startTcpProxy(sentinel.address);
  const url = `redis+sentinel://${proxy.address}/ids`;
  const o = { url, prefix: 'reconnect', logger: silentLogger, operationTimeoutMs: 2000 };
  const ks = new RedisKeyspace(redisOptions.resolve(o) as ResolvedRedisMachineIdOptions);
  try {
    await ks.connect();
    proxy.blackHole();
    ks.reconnect();
    const first = ks.run((r) => r.ping()).catch(String);
    // Connecting: its question to Sentinel is unanswered.
    expect(await eventually(() => proxy.blackHoled > 0)).toBe(true);
    ks.reconnect();
    proxy.forward();
    expect(await ks.run((r) => r.ping())).toBe('PONG');
    expect(await first).toMatch(/COORDINATOR_UNAVAILABLE|closed|within/);
  } finally {
    ks.close();
    await proxy.close();
    await sentinel.dispose();
  }
});
