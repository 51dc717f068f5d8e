import { silentLogger } from '@vesta/core';
import { createSegmentService, MAX_SEGMENT_KEY_LENGTH, MemorySegmentStore } from '@vesta/segment';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRestServer, type RestServer } from './index.js';

// Keys the store and the segment service take (1 to 200 characters without control characters),
// created as `vesta segment create` creates them, and served by the TCP server's SEGMENT.
const KEYS = ['order 1', 'заказ', 'tenant/orders', 'k'.repeat(MAX_SEGMENT_KEY_LENGTH)];

let server: RestServer;
beforeAll(async () => {
  const store = new MemorySegmentStore();
  for (const key of KEYS) await store.createKey(key, { step: 10 });
  server = await startRestServer({
    logger: silentLogger,
    machineId: 1000,
    port: 0,
    stateDir: false,
    segments: createSegmentService({ store }),
  });
});
afterAll(async () => {
  await server?.close();
});

describe('segment mode over REST: every key the store holds (attack11)', () => {
  it.each(KEYS)('serves /segment/{key} for %s', async (key) => {
    const answer = await fetch(`${server.url}/segment/${encodeURIComponent(key)}`);
    expect({ status: answer.status, body: await answer.text() }).toEqual({
      status: 200,
      body: '{"id":"0"}',
    });
  });
});
