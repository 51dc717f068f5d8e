import { startRedisServer, type RedisServer } from '@vesta/testkit';
import { afterAll, beforeAll } from 'vitest';
import { describeSegmentStore } from '../testing/describeSegmentStore.js';
import { RedisSegmentStore } from './RedisSegmentStore.js';

let shared: RedisServer;
beforeAll(async () => {
  shared = await startRedisServer();
});
afterAll(async () => {
  await shared.dispose();
});

describeSegmentStore({
  name: 'Redis',
  shared: (prefix) => new RedisSegmentStore({ url: shared.url, prefix }),
  own: async () => {
    const server = await startRedisServer();
    return { server, store: (prefix) => new RedisSegmentStore({ url: server.url, prefix }) };
  },
});
