import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { VestaError } from '@vesta/core';
import {
  createSegmentService,
  PostgresSegmentStore,
  RedisSegmentStore,
  type SegmentStore,
} from '@vesta/segment';
import {
  signalServerTree,
  startPostgresServer,
  startRedisServer,
  type PostgresServer,
  type RedisServer,
  type TestServer,
} from '@vesta/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { useServerFixtures } from '../testing/useServerFixtures.js';

const { server, client, cleanup } = useServerFixtures();

const stores: TestServer[] = [];
afterAll(async () => {
  await Promise.all(stores.map((s) => s.dispose()));
});

const CASES = [
  {
    name: 'PostgreSQL (a statement deadline of 5,000 ms)',
    start: (): Promise<TestServer> => startPostgresServer(),
    store: (s: TestServer): SegmentStore =>
      new PostgresSegmentStore({ url: (s as PostgresServer).url, table: `stall_${process.pid}` }),
  },
  {
    name: 'Redis (a request deadline of 2,000 ms)',
    start: (): Promise<TestServer> => startRedisServer(),
    store: (s: TestServer): SegmentStore =>
      new RedisSegmentStore({ url: (s as RedisServer).url, prefix: `stall-${randomUUID()}` }),
  },
];

/** The outcome of a call: its value's type, or its error's code. */
const outcome = (p: Promise<unknown>): Promise<string> =>
  p.then(
    (v) => typeof v,
    (error: unknown) => VestaError.from(error).code,
  );

describe.each(CASES)('a client of a server whose segment store stalls (SIGSTOP): $name', (c) => {
  it(
    'gets COORDINATOR_UNAVAILABLE for segment numbers, its ids all the while, and never marks the server down',
    { timeout: 120_000 },
    async () => {
      const db = await c.start();
      stores.push(db);
      const store = c.store(db);
      cleanup.push(() => store.close());
      await store.createKey('order', { step: 1 });
      // One number per segment: the buffer runs dry at once, so calls need the store.
      const segments = createSegmentService({ store, maxStep: 1 });
      cleanup.push(() => segments.close());
      const s = await server(1000, { segments });
      const ids = await client({ servers: [s.url] });
      const downs: string[] = [];
      ids.on('serverDown', (e) => downs.push(e.error.code));
      expect(typeof (await ids.segment('order'))).toBe('bigint');

      signalServerTree(db, 'SIGSTOP');
      const segmentCodes: string[] = [];
      const idCodes = new Map<string, number>();
      try {
        let stop = false;
        // Ids taken all through the stall, one every few ms (at most 5,000).
        const idLoop = (async () => {
          for (let i = 0; i < 5000 && !stop; i++) {
            const code = await outcome(ids.genId());
            idCodes.set(code, (idCodes.get(code) ?? 0) + 1);
            await delay(5);
          }
        })();
        // Segment calls until three were answered COORDINATOR_UNAVAILABLE, which with a
        // server-side wait of 500 ms outlasts the client's request timeout (1,000 ms): at most 20.
        for (let i = 0; i < 20; i++) {
          segmentCodes.push(await outcome(ids.segment('order')));
          if (segmentCodes.filter((code) => code === 'COORDINATOR_UNAVAILABLE').length >= 3) break;
        }
        stop = true;
        await idLoop;
      } finally {
        signalServerTree(db, 'SIGCONT');
      }
      expect(downs).toEqual([]);
      expect(
        segmentCodes.filter((code) => code !== 'bigint' && code !== 'COORDINATOR_UNAVAILABLE'),
      ).toEqual([]);
      expect(segmentCodes.filter((code) => code === 'COORDINATOR_UNAVAILABLE')).toHaveLength(3);
      expect([...idCodes.keys()]).toEqual(['bigint']);
      // The store back: numbers again (a claim per call at most; at most 200 tries).
      let resumed = 'none';
      for (let i = 0; i < 200 && resumed !== 'bigint'; i++)
        resumed = await outcome(ids.segment('order'));
      expect(resumed).toBe('bigint');
    },
  );
});
