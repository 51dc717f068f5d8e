import { silentLogger } from '@vesta/core';
import { leaseHold, renewalTurn } from '@vesta/lease/testing';
import {
  codeOfAsync,
  eventually,
  freePort,
  machineIdRequest,
  startRedisServer,
  type RedisServer,
} from '@vesta/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { RedisAdmin } from './redisCoordinator.js';
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

describe('RedisMachineIdProvider lease', () => {
  it('sends no WAIT for a renewal whose lease closed while its script ran', async () => {
    const replica = await startRedisServer();
    const primary = new Redis(server().url);
    const follower = new Redis(replica.url);
    const calls = async (command: string): Promise<number> =>
      Number(
        new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(
          await primary.info('commandstats'),
        )?.[1] ?? 0,
      );
    try {
      await follower.replicaof('127.0.0.1', Number(new URL(server().url).port));
      const online = async (): Promise<boolean> =>
        /slave0:.*state=online/.test(await primary.info('replication'));
      expect(await eventually(online)).toBe(true);
      const provider = new RedisMachineIdProvider({
        url: server().url,
        prefix: 'closed-turn',
        key: 'closed-turn-1',
        minReplicas: 1,
        // No turn of the lease's own while the test drives its hold.
        refreshIntervalMs: 30_000,
        fenceAfterMs: 60_000,
        eraWaitMs: 0,
        logger: silentLogger,
      });
      const lease = await provider.acquire(request);
      try {
        const hold = leaseHold(lease);
        // The lease closes once the turn took its mark: while its script runs.
        const turn = (closesAtMark: boolean) =>
          renewalTurn({ era: undefined, markMs: () => Date.now() + 60_000, closesAtMark });
        const waits = await calls('wait');
        expect(await hold.renew(turn(true))).toBe('missed');
        expect(await calls('wait')).toBe(waits);
        expect(await hold.renew(turn(false))).toBe('confirmed');
        expect(await calls('wait')).toBe(waits + 1);
      } finally {
        await lease.release();
      }
    } finally {
      primary.disconnect();
      follower.disconnect();
      await replica.dispose();
    }
  });
});
