import { randomUUID } from 'node:crypto';
import { silentLogger, type VestaError } from '@vesta/core';
import {
  createSegmentService,
  PostgresSegmentStore,
  RedisSegmentStore,
  type SegmentStore,
} from '@vesta/segment';
import { createIdClient } from '@vesta/server';
import {
  signalServerTree,
  startPostgresServer,
  startRedisServer,
  type PostgresServer,
  type RedisServer,
  type TestServer,
} from '@vesta/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnVesta } from '../testing/spawnVesta.js';

/**
 * How long a SIGTERM may take with the store stalled: the hand-back's deadline (PostgreSQL's
 * 5,000 ms, Redis's 2,000 ms) and the process's exit, on a loaded machine.
 */
const SHUTDOWN_BOUND_MS = 12_000;

const servers: TestServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.dispose()));
});

const CASES = [
  {
    name: 'PostgreSQL',
    start: (): Promise<TestServer> => startPostgresServer(),
    url: (s: TestServer): string => (s as PostgresServer).url,
    store: (url: string): SegmentStore => new PostgresSegmentStore({ url }),
  },
  {
    name: 'Redis',
    start: (): Promise<TestServer> => startRedisServer(),
    url: (s: TestServer): string => (s as RedisServer).url,
    store: (url: string): SegmentStore => new RedisSegmentStore({ url }),
  },
];

interface LogLine {
  level: number;
  msg: string;
  ranges?: { key: string; start: string; end: string }[];
}

describe.each(CASES)(
  'vesta server --segment-store, SIGTERM while the store is stalled: $name',
  (c) => {
    it(
      'exits 0 within a bound, logs the numbers it could not hand back as not served by it and maybe taken back, and no number is served twice',
      { timeout: 120_000 },
      async () => {
        const db = await c.start();
        servers.push(db);
        const key = `order-${randomUUID().slice(0, 8)}`;
        const store = c.store(c.url(db));
        try {
          await store.createKey(key, { step: 100, start: 1n });
          const server = spawnVesta('server', [
            '--port',
            '0',
            '--machine-id',
            '1000',
            '--no-state-dir',
            '--segment-store',
            c.url(db),
          ]);
          const served: bigint[] = [];
          try {
            const port = await server.listening;
            const client = await createIdClient({
              servers: [`127.0.0.1:${port}`],
              logger: silentLogger,
            });
            try {
              // 3 of the first segment's 100: too few to start the next segment's claim. A
              // store slower than maxWaitMs (a loaded machine) answers COORDINATOR_UNAVAILABLE
              // while its claim goes on: a client asks again, as the next call is served by it.
              for (let attempt = 1; served.length === 0; attempt++) {
                try {
                  served.push(...(await client.segments(key, 3)));
                } catch (error) {
                  if (attempt === 5 || (error as VestaError).code !== 'COORDINATOR_UNAVAILABLE') {
                    throw error;
                  }
                }
              }
            } finally {
              await client.close();
            }
            signalServerTree(db, 'SIGSTOP');
            const stopped = performance.now();
            const exit = await Promise.race([
              server.stop('SIGTERM'),
              new Promise((resolve) => setTimeout(resolve, SHUTDOWN_BOUND_MS, 'no exit')),
            ]);
            expect(exit).toEqual({ code: 0, signal: null });
            expect(performance.now() - stopped).toBeLessThan(SHUTDOWN_BOUND_MS);
          } finally {
            signalServerTree(db, 'SIGCONT');
            await server.stop('SIGKILL');
          }
          expect(served).toEqual([1n, 2n, 3n]);
          const lines = server
            .stdout()
            .flatMap((line) => (line.startsWith('{') ? [JSON.parse(line) as LogLine] : []));
          // The one line on the buffered numbers: which, and that they may come back, not "lost".
          const handBack = lines.filter((l) => l.ranges !== undefined);
          expect(handBack).toHaveLength(1);
          expect(handBack[0]?.ranges).toEqual([{ key, start: '4', end: '101' }]);
          expect(handBack[0]?.msg).toMatch(/may still take them back/);
          expect(lines.filter((l) => l.level >= 50)).toEqual([]);
          // The store back: a new service's numbers, the range the late hand-back may have
          // returned included, repeat none of the served ones.
          const after = createSegmentService({ store });
          const next = await after.segments(key, 150);
          await after.close();
          // 4: the hand-back sent before the stall ran when the store resumed; 101: it never did.
          expect([4n, 101n]).toContain(next[0]);
          expect(next.filter((n) => served.includes(n))).toEqual([]);
          expect(new Set(next).size).toBe(next.length);
        } finally {
          await store.close();
        }
      },
    );
  },
);
