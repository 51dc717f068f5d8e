/**
 * Segment mode (`@vesta/segment`), one run, each store a private server on 127.0.0.1:
 * 1. One caller awaiting one number at a time for VESTA_BENCH_SECONDS: `segment(key)` over
 *    PostgreSQL and over Redis, against the store's own increment at the same concurrency (a
 *    PostgreSQL sequence's `nextval`, Redis `INCR`) and against the embedded service's
 *    `genId()` / `genIdSync()` (64-bit ids), alternated VESTA_BENCH_ROUNDS (default 2) times.
 * The stores are the suite's: Redis with `appendfsync always` (every write on disk, as the
 * lease tests need), which is what `INCR`'s figure pays; a segment claim pays it once a segment.
 * 2. Numbers lost over 20 rolling restarts (a service started, 100 numbers taken, then closed
 *    cleanly, or dropped as a crash would): the next fresh number minus the numbers used.
 * Run: pnpm bench (all), or: sh scripts/pnpm.sh exec tsx bench/src/segment.bench.ts
 */
import { silentLogger } from '@vesta/core';
import { createEmbeddedIdService } from '@vesta/embedded';
import {
  createSegmentService,
  PostgresSegmentStore,
  RedisSegmentStore,
  type SegmentStore,
} from '@vesta/segment';
import { startPostgresServer, startRedisServer } from '@vesta/testkit';
import { Redis } from 'ioredis';
import pg from 'pg';

const SECONDS = Number(process.env.VESTA_BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.VESTA_BENCH_ROUNDS ?? 2);
const RESTARTS = 20;
const TAKEN = 100;

/** Calls of `op`, one at a time, per second over SECONDS (after 0.5 s of warm-up). */
async function rate(op: () => unknown): Promise<number> {
  const warm = performance.now() + 500;
  while (performance.now() < warm) await op();
  let n = 0;
  const started = performance.now();
  const end = started + SECONDS * 1000;
  while (performance.now() < end) {
    await op();
    n++;
  }
  return n / ((performance.now() - started) / 1000);
}

/**
 * Calls of `sync` per second over SECONDS (after 0.5 s of warm-up), one caller, awaiting `wait`
 * only when `sync` has nothing now (the buffer ran dry ahead of its refill).
 */
async function syncRate(
  sync: () => bigint | undefined,
  wait: () => Promise<bigint>,
): Promise<number> {
  const warm = performance.now() + 500;
  while (performance.now() < warm) if (sync() === undefined) await wait();
  let n = 0;
  const started = performance.now();
  const end = started + SECONDS * 1000;
  while (performance.now() < end) {
    // The clock is read once every 1,024 calls: a call costs less than a read of it.
    for (let i = 0; i < 1024; i++) if (sync() === undefined) await wait();
    n += 1024;
  }
  return n / ((performance.now() - started) / 1000);
}

/** The target of a synchronous path (issue 37): one caller in-process. */
const SYNC_TARGET = 10_000_000;

const postgres = await startPostgresServer();
const redis = await startRedisServer();
const pgStore = new PostgresSegmentStore({ url: postgres.url });
const redisStore = new RedisSegmentStore({ url: redis.url });
await pgStore.createKey('bench', { step: 1000 });
await redisStore.createKey('bench', { step: 1000 });
const pgNumbers = createSegmentService({ store: pgStore });
const redisNumbers = createSegmentService({ store: redisStore });
const pool = new pg.Pool({ connectionString: postgres.url, max: 1 });
await pool.query('CREATE SEQUENCE IF NOT EXISTS bench_seq');
const incr = new Redis(redis.url);
const ids = await createEmbeddedIdService({
  machineId: 33,
  type: 'min-granularity',
  logger: silentLogger,
  hostLockScope: `bench-segment-${process.pid}`,
});

type Task = [string, () => Promise<number>];
const awaited = (name: string, op: () => unknown): Task => [name, () => rate(op)];
const tasks: Task[] = [
  awaited('`segment(key)`, PostgreSQL store', () => pgNumbers.segment('bench')),
  [
    '`segmentSync(key) ?? await segment(key)`, PostgreSQL store',
    () =>
      syncRate(
        () => pgNumbers.segmentSync('bench'),
        () => pgNumbers.segment('bench'),
      ),
  ],
  awaited("PostgreSQL `nextval` (the store's own increment)", () =>
    pool.query("SELECT nextval('bench_seq')"),
  ),
  awaited('`segment(key)`, Redis store', () => redisNumbers.segment('bench')),
  [
    '`segmentSync(key) ?? await segment(key)`, Redis store',
    () =>
      syncRate(
        () => redisNumbers.segmentSync('bench'),
        () => redisNumbers.segment('bench'),
      ),
  ],
  awaited("Redis `INCR` (the store's own increment)", () => incr.incr('bench:incr')),
  awaited('embedded `genId()` (64-bit ids)', () => ids.genId()),
  awaited('embedded `genIdSync()` (64-bit ids)', () => ids.genIdSync()),
];
const sums = new Map<string, number>();
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, measure] of tasks) sums.set(name, (sums.get(name) ?? 0) + (await measure()));
}

/** Numbers lost over RESTARTS starts of a service on `store`'s key `key`, closed or dropped. */
async function lostOver(store: SegmentStore, key: string, clean: boolean): Promise<bigint> {
  await store.createKey(key, { step: 1000 });
  let used = 0n;
  let first: bigint | undefined;
  for (let i = 0; i < RESTARTS; i++) {
    const service = createSegmentService({ store });
    for (let j = 0; j < TAKEN; j++) {
      const n = await service.segment(key);
      first ??= n;
    }
    used += BigInt(TAKEN);
    // A crash drops the service: its buffered segments are never handed back.
    if (clean) await service.close();
  }
  // The next number any service would get: a handed-back range's first, or the key's max.
  const fresh = await store.claim(key, { step: 1 });
  return fresh.start - (first ?? 0n) - used;
}
const lost = {
  clean: await lostOver(pgStore, 'restarts-clean', true),
  crash: await lostOver(pgStore, 'restarts-crash', false),
};

await pgNumbers.close();
await redisNumbers.close();
await ids.close();
await pgStore.close();
await redisStore.close();
await pool.end();
incr.disconnect();
await postgres.dispose();
await redis.dispose();

const peer = (sums.get("PostgreSQL `nextval` (the store's own increment)") ?? 1) / ROUNDS;
console.log(`One caller, one number at a time, ${SECONDS} s x ${ROUNDS} alternated rounds:\n`);
console.log('| numbers from | per second | x PostgreSQL nextval | target |');
console.log('| --- | ---: | ---: | --- |');
for (const [name] of tasks) {
  const perSecond = (sums.get(name) ?? 0) / ROUNDS;
  const target = name.startsWith('`segmentSync')
    ? `>= ${SYNC_TARGET.toLocaleString('en-US')}/s: ${perSecond >= SYNC_TARGET ? 'met' : '**not met**'}`
    : '';
  console.log(
    `| ${name} | ${Math.round(perSecond).toLocaleString('en-US')} | ${(perSecond / peer).toFixed(1)}x | ${target} |`,
  );
}
console.log(
  `\nNumbers lost over ${RESTARTS} restarts, ${TAKEN} numbers taken each, PostgreSQL store, step 1000:\n`,
);
console.log('| restarts | numbers lost |');
console.log('| --- | ---: |');
console.log(`| clean (close hands back) | ${lost.clean.toLocaleString('en-US')} |`);
console.log(`| crash (nothing handed back) | ${lost.crash.toLocaleString('en-US')} |`);
