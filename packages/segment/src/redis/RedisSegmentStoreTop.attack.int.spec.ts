import { VestaError } from '@vesta/core';
import { startRedisServer, type RedisServer } from '@vesta/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSegmentService } from '../createSegmentService.js';
import { MAX_SEGMENT_NUMBER } from '../store/checkStart.js';
import { RedisSegmentStore } from './RedisSegmentStore.js';

let redis: RedisServer;
let store: RedisSegmentStore;
beforeAll(async () => {
  redis = await startRedisServer();
  store = new RedisSegmentStore({ url: redis.url, prefix: `attack11_${process.pid}` });
});
afterAll(async () => {
  await store?.close();
  await redis?.dispose();
});

describe('a segment key at the top of its numbers (attack11)', () => {
  it('says the key has run out, not that its store failed (503 COORDINATOR_UNAVAILABLE)', async () => {
    await store.createKey('top', { step: 5, start: MAX_SEGMENT_NUMBER - 7n });
    const service = createSegmentService({ store });
    try {
      expect(await service.segments('top', 5)).toEqual(
        [7n, 6n, 5n, 4n, 3n].map((below) => MAX_SEGMENT_NUMBER - below),
      );
      // The next range would pass 2^63 - 1: the store answers, and the key is used up for good.
      const error = await service.segment('top').catch((e: unknown) => e);
      expect(VestaError.is(error)).toBe(true);
      const { code, message } = error as VestaError;
      expect(code, message).not.toBe('COORDINATOR_UNAVAILABLE');
    } finally {
      await service.close();
    }
  });
});
