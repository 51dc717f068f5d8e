import { VestaError } from '@vesta/core';
import { codeOfAsync, eventually, startRedisServer, type RedisServer } from '@vesta/testkit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSegmentService } from '../createSegmentService.js';
import { RedisSegmentStore } from './RedisSegmentStore.js';

let volatile: RedisServer;
const stores: RedisSegmentStore[] = [];
beforeAll(async () => {
  volatile = await startRedisServer({ appendOnly: false });
});
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await volatile.dispose();
});

const storeOn = (server: RedisServer, options: { requireAppendOnly?: boolean } = {}) => {
  const store = new RedisSegmentStore({
    url: server.url,
    prefix: `durable_${process.pid}`,
    ...options,
  });
  stores.push(store);
  return store;
};

describe('RedisSegmentStore on a Redis that keeps no append-only file', () => {
  it('answers COORDINATOR_UNAVAILABLE and hands out nothing, so a restart that comes back empty cannot make numbers repeat', async () => {
    // What an application does at start-up: create its key (false when it exists), then serve.
    const start = async (): Promise<bigint[]> => {
      const store = storeOn(volatile);
      await store.createKey('order', { step: 100 });
      const service = createSegmentService({ store });
      const numbers = await service.segments('order', 10);
      await service.close();
      return numbers;
    };
    expect(await codeOfAsync(start)).toBe('COORDINATOR_UNAVAILABLE');
    // Without the refusal: the first start serves 0-9, Redis restarts empty, and the next start
    // serves 0-9 again.
    await volatile.stop({ kill: true });
    await volatile.restart();
    expect(await codeOfAsync(start)).toBe('COORDINATOR_UNAVAILABLE');
    const store = storeOn(volatile);
    expect(await codeOfAsync(() => store.keys())).toBe('COORDINATOR_UNAVAILABLE');
    // A connection of the application's own is checked the same way.
    const own = new Redis(volatile.url);
    try {
      const onOwn = new RedisSegmentStore({ redis: own, prefix: `durable_${process.pid}` });
      expect(await codeOfAsync(() => onOwn.createKey('order', { step: 100 }))).toBe(
        'COORDINATOR_UNAVAILABLE',
      );
    } finally {
      own.disconnect(false);
    }
  });

  it('with requireAppendOnly: false, a service that was running when Redis came back empty serves its buffer, then refuses with a coded error, never a number again', async () => {
    const store = storeOn(volatile, { requireAppendOnly: false });
    await store.createKey('invoice', { step: 500 });
    const service = createSegmentService({ store, maxStep: 500, retryAfterMs: 0 });
    const seen = await service.segments('invoice', 100);
    // The background claim of the next segment has landed: 400 + 500 numbers are buffered.
    expect(await eventually(async () => (await store.keys())[0]?.max === 1000n)).toBe(true);
    await volatile.stop({ kill: true });
    await volatile.restart();
    // Back, empty (the store reconnects on its own).
    let keys: unknown;
    expect(
      await eventually(async () => {
        keys = await store.keys().catch(() => undefined);
        return keys !== undefined;
      }),
    ).toBe(true);
    expect(keys).toEqual([]);

    const codes: string[] = [];
    for (let i = 0; i < 2000 && codes.length < 5; i++) {
      try {
        seen.push(await service.segment('invoice'));
      } catch (error) {
        codes.push(VestaError.is(error) ? error.code : 'UNCODED');
      }
    }
    expect(seen).toHaveLength(1000);
    expect(new Set(codes)).toEqual(new Set(['SEGMENT_KEY_UNKNOWN']));

    // Start-up code creates the key again at its start: the running service refuses the range
    // below its numbers (a coded error), and serves nothing it served before.
    await store.createKey('invoice', { step: 500 });
    const refused = await codeOfAsync(() => service.segment('invoice'));
    expect(refused).toBeDefined();
    expect(refused).not.toBe('SEGMENT_KEY_UNKNOWN');
    expect(new Set(seen).size).toBe(1000);
    await service.close().catch(() => undefined);
  });
});
