import { connect } from 'node:net';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import {
  createSegmentService,
  MAX_SEGMENT_NUMBER,
  RedisSegmentStore,
  type SegmentService,
} from '@vesta/segment';
import { rejection, tempDir, startRedisServer, type RedisServer } from '@vesta/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allocFrame } from '../protocol/Frame.js';
import { FrameDecoder } from '../protocol/FrameDecoder.js';
import { HelloMessage } from '../protocol/HelloMessage.js';
import { Op, HEADER_BYTES } from '../protocol/protocolConstants.js';
import { ErrorMessage } from '../protocol/ErrorMessage.js';
import { SegmentMessage } from '../protocol/SegmentMessage.js';
import type { IdServerHandle } from '../server/startIdServer.js';
import { useServerFixtures } from '../testing/useServerFixtures.js';
import { ProtocolConnection } from './ProtocolConnection.js';

const { server, client, cleanup } = useServerFixtures();

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

/** A store on the test's Redis under a prefix of its own, with `key` created (a small step: many claims). */
async function storeWith(key: string, step = 10, url = redis.url): Promise<RedisSegmentStore> {
  const store = new RedisSegmentStore({ url, prefix: `seg-${randomUUID()}` });
  cleanup.push(() => store.close());
  await store.createKey(key, { step, start: 1n });
  return store;
}

/** A server on machine id `machineId` serving `store`'s numbers through a service of its own. */
async function segmentServer(
  machineId: number,
  store: RedisSegmentStore,
  maxBatch?: number,
): Promise<{ server: IdServerHandle; segments: SegmentService }> {
  const segments = createSegmentService({ store, ...(maxBatch === undefined ? {} : { maxBatch }) });
  // Closed after the server (cleanup runs in reverse): its rest goes back to the store.
  cleanup.push(() => segments.close());
  return { server: await server(machineId, { segments }), segments };
}

/** A raw, handshaken connection to `s`. */
async function rawConnection(s: IdServerHandle): Promise<ProtocolConnection> {
  const c = await ProtocolConnection.connect(s.address);
  cleanup.push(() => c.close());
  return c;
}

function expectStrictlyIncreasing(numbers: readonly bigint[]): void {
  for (let i = 1; i < numbers.length; i++) {
    expect(numbers[i] as bigint).toBeGreaterThan(numbers[i - 1] as bigint);
  }
}

describe('segment numbers over TCP (SEGMENT)', () => {
  it('are strictly increasing per server and key, and unique across two servers on one store', async () => {
    const store = await storeWith('order');
    const a = await segmentServer(1001, store);
    const b = await segmentServer(1002, store);
    const [ca, cb] = [await rawConnection(a.server), await rawConnection(b.server)];
    const perServer: [bigint[], bigint[]] = [[], []];
    // Pipelined, in both orders: a connection's answers are in the order of its requests' claims.
    for (let round = 0; round < 30; round++) {
      const count = (round % 5) + 1;
      const [na, nb] = await Promise.all([
        ca.segments('order', count),
        cb.segments('order', count),
      ]);
      expect(na).toHaveLength(count);
      expect(nb).toHaveLength(count);
      perServer[0].push(...na);
      perServer[1].push(...nb);
    }
    expectStrictlyIncreasing(perServer[0]);
    expectStrictlyIncreasing(perServer[1]);
    const all = [...perServer[0], ...perServer[1]];
    expect(new Set(all).size).toBe(all.length);
    expect(all.every((n) => typeof n === 'bigint' && n >= 1n)).toBe(true);
  });

  it('through the client: 200 concurrent calls over two servers get no number twice', async () => {
    const store = await storeWith('invoice', 7);
    const a = await segmentServer(1001, store);
    const b = await segmentServer(1002, store);
    const numbers = await client({ servers: [a.server.url, b.server.url] });
    const got = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        i % 2 === 0 ? numbers.segment('invoice').then((n) => [n]) : numbers.segments('invoice', 3),
      ),
    );
    for (const batch of got) expectStrictlyIncreasing(batch);
    const all = got.flat();
    expect(all).toHaveLength(400);
    expect(new Set(all).size).toBe(400);
  });

  it('fails over to the other server when one goes away, and never makes numbers up in the fallback', async () => {
    const store = await storeWith('order');
    const a = await segmentServer(1001, store);
    const b = await segmentServer(1002, store);
    const numbers = await client({
      servers: [a.server.url, b.server.url],
      fallback: { machineId: 7, stateDir: tempDir('vesta-segment-fallback-') },
      requestTimeoutMs: 500,
      probeIntervalMs: 20,
    });
    const before = await numbers.segments('order', 4);
    await a.server.close();
    const after: bigint[] = [];
    for (let i = 0; i < 20; i++) after.push(await numbers.segment('order'));
    expect(new Set([...before, ...after]).size).toBe(24);
    // Every later number came from b, in its order.
    expectStrictlyIncreasing(after);
    await b.server.close();
    const error = await rejection(numbers.segment('order'));
    expect(error.code).toBe('NO_SERVER_AVAILABLE');
    expect(error.message).toContain('the fallback never issues them');
    // Ids still fall back: only segment numbers cannot.
    expect(typeof (await numbers.genId())).toBe('bigint');
  });

  it('moves on without marking a server down whose store is down (COORDINATOR_UNAVAILABLE)', async () => {
    const dead = await startRedisServer();
    const deadStore = await storeWith('order', 10, dead.url);
    await dead.stop();
    const a = await segmentServer(1001, deadStore);
    const b = await segmentServer(1002, await storeWith('order'));
    const numbers = await client({ servers: [a.server.url, b.server.url] });
    for (let i = 0; i < 4; i++) expect(typeof (await numbers.segment('order'))).toBe('bigint');
    expect(numbers.info().servers.map((s) => s.state)).toEqual(['up', 'up']);
    // Only that server: its answer, coded.
    const only = await client({ servers: [a.server.url] });
    expect((await rejection(only.segment('order'))).code).toBe('COORDINATOR_UNAVAILABLE');
  });

  it('answers coded errors that leave the connection open: bad key, unknown key, count out of range', async () => {
    const store = await storeWith('order');
    const { server: s } = await segmentServer(1001, store, 50);
    const c = await rawConnection(s);
    expect((await rejection(c.segments('bad\nkey', 1))).code).toBe('INVALID_ARGUMENT');
    expect((await rejection(c.segments('x'.repeat(201), 1))).code).toBe('INVALID_ARGUMENT');
    // C1 controls and noncharacters, like C0 ones; 201 emoji are 201 characters (804 bytes).
    for (const bad of ['a\u0085b', 'a\u0080', 'a\uFFFE', '\u{1F600}'.repeat(201)]) {
      expect((await rejection(c.segments(bad, 1))).code, JSON.stringify(bad)).toBe(
        'INVALID_ARGUMENT',
      );
    }
    const unknown = await rejection(c.segments('nobody', 1));
    expect(unknown.code).toBe('SEGMENT_KEY_UNKNOWN');
    expect(unknown.details).toMatchObject({ remote: true });
    expect((await rejection(c.segments('order', 0))).code).toBe('INVALID_ARGUMENT');
    // Above the server's maxBatch, and above the segment service's own (50).
    expect((await rejection(c.segments('order', s.service.info().maxBatch + 1))).code).toBe(
      'INVALID_ARGUMENT',
    );
    expect((await rejection(c.segments('order', 51))).code).toBe('INVALID_ARGUMENT');
    // A key too long for a frame never leaves the client.
    expect((await rejection(c.segments('é'.repeat(301), 1))).code).toBe('INVALID_ARGUMENT');
    expect(c.usable).toBe(true);
    expect(await c.segments('order', 2)).toEqual([1n, 2n]);
    // The client turns the same answers into the same codes, at once (no retry elsewhere).
    const numbers = await client({ servers: [s.url] });
    expect((await rejection(numbers.segment('nobody'))).code).toBe('SEGMENT_KEY_UNKNOWN');
    expect((await rejection(numbers.segments('order', 0))).code).toBe('INVALID_ARGUMENT');
    expect(numbers.info().servers[0]?.state).toBe('up');
  });

  it('serves a key that starts with U+FEFF as itself, not as the key without it', async () => {
    const store = await storeWith('order');
    await store.createKey('\uFEFForder', { step: 10, start: 1n });
    const { server: s } = await segmentServer(1001, store);
    const c = await rawConnection(s);
    expect(await c.segments('order', 2)).toEqual([1n, 2n]);
    expect(await c.segments('\uFEFForder', 2)).toEqual([1n, 2n]);
    expect(await c.segments('order', 1)).toEqual([3n]);
  });

  it('serves a key of 200 emoji (400 UTF-16 units, 800 bytes): the limit counts code points, as over REST', async () => {
    const key = '\u{1F600}'.repeat(200);
    const store = await storeWith(key);
    const { server: s } = await segmentServer(1001, store);
    const c = await rawConnection(s);
    expect(await c.segments(key, 2)).toEqual([1n, 2n]);
  });

  it('answers SEGMENT_SEQUENCE_OVERFLOW (wire 42) for a key that ran out, leaving the connection open', async () => {
    const store = await storeWith('order');
    await store.createKey('top', { step: 1, start: MAX_SEGMENT_NUMBER - 1n });
    const { server: s } = await segmentServer(1001, store);
    const c = await rawConnection(s);
    // The largest number a key serves, then the key has run out.
    expect(await c.segments('top', 1)).toEqual([2n ** 63n - 2n]);
    const ranOut = await rejection(c.segments('top', 1));
    expect(ranOut.code, ranOut.message).toBe('SEGMENT_SEQUENCE_OVERFLOW');
    expect(ranOut.details).toMatchObject({ remote: true });
    expect(c.usable).toBe(true);
    expect(await c.segments('order', 2)).toEqual([1n, 2n]);
    const numbers = await client({ servers: [s.url] });
    expect((await rejection(numbers.segment('top'))).code).toBe('SEGMENT_SEQUENCE_OVERFLOW');
    expect(numbers.info().servers[0]?.state).toBe('up');
  });

  it('answers SEGMENT_KEY_UNKNOWN for every key on a server without a segment service', async () => {
    const s = await server(1001);
    const c = await rawConnection(s);
    const error = await rejection(c.segments('order', 1));
    expect(error.code).toBe('SEGMENT_KEY_UNKNOWN');
    expect(error.message).toContain('without a segment store');
    // A key outside the one key rule is the caller's error here too, as over REST.
    expect((await rejection(c.segments('bad\nkey', 1))).code).toBe('INVALID_ARGUMENT');
    expect(typeof (await c.generateOne())).toBe('bigint');
  });

  it('answers a key that is not UTF-8 with INVALID_ARGUMENT, and a malformed payload with PROTOCOL_ERROR and a close', async () => {
    const s = await server(1001, {
      segments: createSegmentService({ store: await storeWith('k') }),
    });
    const socket = connect({ host: '127.0.0.1', port: s.address.port });
    cleanup.push(async () => {
      socket.destroy();
    });
    const decoder = new FrameDecoder(64 * 1024);
    const frames: { requestId: number; op: number; payload: Buffer }[] = [];
    let waiting: (() => void) | undefined;
    socket.on('data', (chunk: Buffer) => {
      decoder.push(chunk);
      for (let f = decoder.next(); f !== undefined; f = decoder.next()) {
        frames.push({ ...f, payload: Buffer.from(f.payload) });
      }
      waiting?.();
    });
    const frame = async (): Promise<{ requestId: number; op: number; payload: Buffer }> => {
      // Bounded by the test's timeout; woken by each chunk.
      while (frames.length === 0) await new Promise<void>((resolve) => (waiting = resolve));
      return frames.shift() as { requestId: number; op: number; payload: Buffer };
    };
    await once(socket, 'connect');
    socket.write(HelloMessage.encode(1, { protocolVersion: 4, token: undefined }));
    expect((await frame()).op).toBe(Op.HELLO | 0x80);
    const latin = SegmentMessage.encodeRequest(2, 'ab', 1);
    latin[HEADER_BYTES + 6] = 0xff;
    socket.write(latin);
    const notUtf8 = await frame();
    expect(notUtf8.requestId).toBe(2);
    expect(ErrorMessage.decode(notUtf8.payload).code).toBe('INVALID_ARGUMENT');
    socket.write(SegmentMessage.encodeRequest(3, 'k', 2));
    const answer = await frame();
    expect(answer.op).toBe(Op.SEGMENT | 0x80);
    expect(SegmentMessage.decodeResponse(answer.payload)).toEqual([1n, 2n]);
    // A key length the payload does not have: the stream is wrong.
    const broken = allocFrame(4, Op.SEGMENT, 7);
    broken.writeUInt32BE(1, HEADER_BYTES);
    broken.writeUInt16BE(5, HEADER_BYTES + 4);
    broken.write('k', HEADER_BYTES + 6);
    socket.write(broken);
    const fatal = await frame();
    expect(fatal.requestId).toBe(4);
    expect(ErrorMessage.decode(fatal.payload).code).toBe('PROTOCOL_ERROR');
    if (!socket.closed) await once(socket, 'close');
  });
});
