import { silentLogger } from '@vesta/core';
import {
  createSegmentService,
  MAX_SEGMENT_KEY_LENGTH,
  MAX_SEGMENT_NUMBER,
  MemorySegmentStore,
  type SegmentService,
} from '@vesta/segment';
import { afterEach, describe, expect, it } from 'vitest';
import { startRestServer, type RestServer } from './index.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function serve(segments?: SegmentService, machineId = 1002): Promise<RestServer> {
  const server = await startRestServer({
    logger: silentLogger,
    machineId,
    port: 0,
    stateDir: false,
    ...(segments === undefined ? {} : { segments }),
  });
  open.push(server);
  return server;
}

async function get(
  server: RestServer,
  path: string,
): Promise<{ status: number; type: string; body: string }> {
  const answer = await fetch(`${server.url}${path}`);
  return {
    status: answer.status,
    type: answer.headers.get('content-type') ?? '',
    body: await answer.text(),
  };
}

describe('segment mode over REST', () => {
  it("issues a key's numbers from /segment/{key} as JSON strings and from Leaf's /api/segment/get/{key} as text, one increasing sequence", async () => {
    const store = new MemorySegmentStore();
    await store.createKey('order', { step: 10, start: 1n });
    const segments = createSegmentService({ store });
    open.push(segments);
    const server = await serve(segments);
    const issued: bigint[] = [];
    for (let i = 0; i < 30; i++) {
      const json = await get(server, '/segment/order');
      expect(json.status).toBe(200);
      expect(json.type).toMatch(/^application\/json/);
      issued.push(BigInt((JSON.parse(json.body) as { id: string }).id));
      const leaf = await get(server, '/api/segment/get/order');
      expect(leaf.status).toBe(200);
      expect(leaf.type).toMatch(/^text\/plain/);
      expect(leaf.body).toMatch(/^[0-9]+$/);
      issued.push(BigInt(leaf.body));
    }
    // Dense from 1 across three segments of 10 and more: 1, 2, 3, ... 60.
    expect(issued).toEqual(Array.from({ length: 60 }, (_, i) => BigInt(i + 1)));
  });

  it('answers an unknown key, a malformed one, a key that ran out and a server without a segment store with coded errors', async () => {
    const store = new MemorySegmentStore();
    const segments = createSegmentService({ store });
    open.push(segments);
    const server = await serve(segments);
    const unknown = await get(server, '/segment/nope');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toMatchObject({ error: { code: 'SEGMENT_KEY_UNKNOWN' } });
    const malformed = await get(server, '/api/segment/get/bad%00key');
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.body)).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });

    // The largest number a key serves, 2^63 - 2, then the key has run out.
    await store.createKey('top', { step: 1, start: MAX_SEGMENT_NUMBER - 1n });
    expect(await get(server, '/segment/top')).toMatchObject({
      status: 200,
      body: '{"id":"9223372036854775806"}',
    });
    for (const path of ['/segment/top', '/api/segment/get/top']) {
      const ranOut = await get(server, path);
      expect({ path, status: ranOut.status }).toEqual({ path, status: 503 });
      expect(JSON.parse(ranOut.body)).toMatchObject({
        error: { code: 'SEGMENT_SEQUENCE_OVERFLOW' },
      });
    }

    const without = await serve(undefined, 1003);
    const none = await get(without, '/api/segment/get/order');
    expect(none.status).toBe(404);
    expect(JSON.parse(none.body)).toMatchObject({
      error: {
        code: 'SEGMENT_KEY_UNKNOWN',
        message: expect.stringContaining('without a segment store'),
      },
    });
  });
});

describe("segment keys over REST: the segment stores' one rule, percent-decoded", () => {
  // Keys the store and the segment service take (1 to 200 code points without control characters),
  // created as `vesta segment create` creates them, and served by the TCP server's SEGMENT.
  const KEYS = [
    'order 1',
    'заказ',
    'tenant/orders',
    'k'.repeat(MAX_SEGMENT_KEY_LENGTH),
    // 200 code points, 400 UTF-16 units: the limit counts code points.
    '\u{1F600}'.repeat(MAX_SEGMENT_KEY_LENGTH),
  ];

  async function serveKeys(): Promise<RestServer> {
    const store = new MemorySegmentStore();
    for (const key of KEYS) await store.createKey(key, { step: 10 });
    const segments = createSegmentService({ store });
    open.push(segments);
    return serve(segments, 1004);
  }

  it.each(KEYS)('serves /segment/{key} and /api/segment/get/{key} for %s', async (key) => {
    const server = await serveKeys();
    expect(await get(server, `/segment/${encodeURIComponent(key)}`)).toMatchObject({
      status: 200,
      body: '{"id":"0"}',
    });
    expect(await get(server, `/api/segment/get/${encodeURIComponent(key)}`)).toMatchObject({
      status: 200,
      body: '1',
    });
  });

  it.each([
    ['a control character', 'order%0A1'],
    ['DEL', 'order%7F'],
    ['U+0085, a C1 control', 'a%C2%85b'],
    ['U+0080, a C1 control', 'a%C2%80'],
    ['the noncharacter U+FFFE', 'a%EF%BF%BE'],
    [`${MAX_SEGMENT_KEY_LENGTH + 1} characters`, 'k'.repeat(MAX_SEGMENT_KEY_LENGTH + 1)],
    [
      `${MAX_SEGMENT_KEY_LENGTH + 1} emoji`,
      encodeURIComponent('\u{1F600}'.repeat(MAX_SEGMENT_KEY_LENGTH + 1)),
    ],
    ['an empty key', ''],
    ['malformed percent-encoding', 'order%E0%A4%A'],
    ['a stray percent sign', 'order%ZZ'],
    ['a slash not percent-encoded', 'tenant/'],
  ])('refuses %s with a coded 400 on both paths', async (_what, raw) => {
    const server = await serveKeys();
    for (const prefix of ['/segment/', '/api/segment/get/']) {
      const answer = await get(server, `${prefix}${raw}`);
      expect({ path: prefix, status: answer.status }).toEqual({ path: prefix, status: 400 });
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });
    }
  });
});
