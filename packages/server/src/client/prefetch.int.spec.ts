import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualTimeSource, rejection, startTcpProxy } from '@vesta/testkit';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { IdServerHandle } from '../server/startIdServer.js';
import { spawnServer, type ServerProcess } from '../testing/spawnServer.js';
import { useServerFixtures } from '../testing/useServerFixtures.js';
import type { IdClient } from './IdClient.js';
import type { IdClientPrefetchInfo } from './PrefetchBuffer.js';

const { server, client, cleanup } = useServerFixtures();

/** GENERATE requests the server has answered: the round trips the clients paid. */
async function generates(s: IdServerHandle): Promise<number> {
  return (await s.metrics.requests.get()).values
    .filter((v) => v.labels['route'] === 'generate')
    .reduce((sum, v) => sum + v.value, 0);
}

function prefetchOf(ids: IdClient): IdClientPrefetchInfo {
  const info = ids.info().prefetch;
  if (info === undefined) throw new Error('prefetch is off');
  return info;
}

/** Whether each id is above the one before. */
function increasing(ids: readonly bigint[]): boolean {
  return ids.every((id, i) => i === 0 || id > (ids[i - 1] as bigint));
}

/**
 * A client on manual time with batches of at most 100: the first call fetches 1 id (no rate
 * known yet), the second measures the rate (on manual time, over the 1 ms floor) and fetches a
 * full batch, leaving 99 buffered and the low-water mark at 50.
 */
async function primed(s: IdServerHandle, extra: { maxAgeMs?: number; registry?: Registry } = {}) {
  const time = new ManualTimeSource();
  const { registry, ...prefetch } = extra;
  const ids = await client({
    servers: [s.url],
    time,
    prefetch: { maxBatch: 100, ...prefetch },
    ...(registry === undefined ? {} : { registry }),
  });
  const first = [await ids.genId(), await ids.genId()];
  expect(prefetchOf(ids)).toMatchObject({ buffered: 99, batchSize: 100, lowWater: 50, refills: 2 });
  return { ids, time, first };
}

describe('the id client with prefetch', () => {
  it('is off by default', async () => {
    const s = await server(950);
    const ids = await client({ servers: [s.url] });
    await ids.genId();
    await ids.genId();
    expect(ids.info().prefetch).toBeUndefined();
    expect(await generates(s)).toBe(2);
  });

  it('serves genId from the buffer without a round trip, and refills once at the low-water mark with one refill in flight', async () => {
    const s = await server(951);
    const { ids, first } = await primed(s);
    expect(await generates(s)).toBe(2);
    const fromBuffer = await Promise.all(Array.from({ length: 49 }, () => ids.genId()));
    expect(await generates(s)).toBe(2);
    expect(prefetchOf(ids)).toMatchObject({ buffered: 50, refills: 2 });
    // The 50th takes the buffer below the mark: one refill starts, and the next 40 takes
    // (synchronous, while it is in flight) start no other.
    const crossing = Array.from({ length: 41 }, () => ids.genId());
    expect(prefetchOf(ids)).toMatchObject({ buffered: 9, refills: 3 });
    const served = [...first, ...fromBuffer, ...(await Promise.all(crossing))];
    await expect.poll(() => prefetchOf(ids).refilling).toBe(false);
    expect(prefetchOf(ids)).toMatchObject({ buffered: 109, refills: 3 });
    expect(await generates(s)).toBe(3);
    // One server issues in increasing order and the buffer keeps it.
    expect(increasing(served)).toBe(true);
    expect(new Set(served).size).toBe(92);
  });

  it('sizes batches to the rate of its callers: 1 id for a slow caller, up to maxBatch for a fast one', async () => {
    const s = await server(963);
    const time = new ManualTimeSource();
    const ids = await client({ servers: [s.url], time, prefetch: { maxBatch: 1000 } });
    // One id every 10 s: each call fetches exactly its own id, nothing waits in the buffer.
    for (let i = 0; i < 5; i++) {
      await ids.genId();
      await time.advance(10_000);
    }
    expect(prefetchOf(ids)).toMatchObject({
      batchSize: 1,
      buffered: 0,
      refills: 5,
      droppedStale: 0,
    });
    expect(await generates(s)).toBe(5);
    // One id a millisecond: 250 ids (a quarter of maxAgeMs) per batch.
    await ids.genId();
    await time.advance(1);
    await ids.genId();
    expect(prefetchOf(ids)).toMatchObject({ batchSize: 250, buffered: 249, lowWater: 125 });
    // 126 ids within the same millisecond: the rate the next batch is sized for passes the cap.
    await Promise.all(Array.from({ length: 125 }, () => ids.genId()));
    await expect.poll(() => prefetchOf(ids).refilling).toBe(false);
    expect(prefetchOf(ids)).toMatchObject({ batchSize: 1000, buffered: 1124, refills: 8 });
  });

  it('drops a buffered id older than maxAgeMs, never serving it', async () => {
    const s = await server(952);
    const registry = new Registry();
    const { ids, time } = await primed(s, { maxAgeMs: 1000, registry });
    // Issued by the same server after the buffered batch: above every buffered id.
    const plain = await client({ servers: [s.url] });
    const later = await plain.genId();
    await time.advance(1000);
    expect(await ids.genId()).toBeLessThan(later);
    await time.advance(1);
    const fresh = await ids.genId();
    expect(fresh).toBeGreaterThan(later);
    expect(prefetchOf(ids).droppedStale).toBe(98);
    const stale = await registry.getSingleMetricAsString('vesta_client_prefetch_stale_ids_total');
    expect(stale).toMatch(/^vesta_client_prefetch_stale_ids_total 98$/m);
  });

  it('serves genIds from the buffer when it holds enough, strictly increasing, and fetches directly otherwise', async () => {
    const s = await server(953);
    const { ids, first } = await primed(s);
    const run = await ids.genIds(30);
    expect(run).toHaveLength(30);
    expect(increasing([...first, ...run])).toBe(true);
    expect(await generates(s)).toBe(2);
    expect(prefetchOf(ids).buffered).toBe(69);
    const direct = await ids.genIds(80);
    expect(increasing(direct)).toBe(true);
    expect(await generates(s)).toBe(3);
    expect(prefetchOf(ids).buffered).toBe(69);
  });

  it('serves genIds from the buffer only across batches that join in increasing order', async () => {
    // Both servers in one frozen second: their ids order by sequence first, so the second
    // server's batch may start below the end of the first one's.
    const frozen = Date.now();
    const a = await server(960, { clock: () => frozen });
    const b = await server(961, { clock: () => frozen });
    const time = new ManualTimeSource();
    const ids = await client({ servers: [a.url, b.url], time, prefetch: { maxBatch: 100 } });
    // a: 1 id (seq 0); b: 100 ids (seq 0-99), 99 left; 50 taken, a refill from a (seq 1-100).
    await ids.genId();
    await ids.genId();
    await Promise.all(Array.from({ length: 50 }, () => ids.genId()));
    await expect.poll(() => prefetchOf(ids).refilling).toBe(false);
    expect(prefetchOf(ids)).toMatchObject({ buffered: 149, refills: 3 });
    const requests = async (): Promise<number> => (await generates(a)) + (await generates(b));
    // 60 would span b's seq 51-99 then a's seq 1-11: not increasing, so fetched directly.
    const spanning = await ids.genIds(60);
    expect(increasing(spanning)).toBe(true);
    expect(await requests()).toBe(4);
    expect(prefetchOf(ids).buffered).toBe(149);
    const rest = [...(await ids.genIds(49)), ...(await ids.genIds(60))];
    expect(rest.map((id) => ids.expId(id).machine)).toEqual([
      ...Array<number>(49).fill(961),
      ...Array<number>(60).fill(960),
    ]);
    expect(await requests()).toBe(4);
    // Manual time: close would wait for the refill in flight on a timer nobody advances.
    await expect.poll(() => prefetchOf(ids).refilling).toBe(false);
  });

  it('drops the buffer on close', async () => {
    const s = await server(954);
    const registry = new Registry();
    const { ids } = await primed(s, { registry });
    const gauge = async (): Promise<string> =>
      registry.getSingleMetricAsString('vesta_client_prefetch_buffered_ids');
    expect(await gauge()).toMatch(/^vesta_client_prefetch_buffered_ids 99$/m);
    await ids.close();
    expect(prefetchOf(ids).buffered).toBe(0);
    expect((await rejection(ids.genId())).code).toBe('SERVICE_CLOSED');
    expect(await gauge()).toMatch(/^vesta_client_prefetch_buffered_ids 0$/m);
  });

  it('fails the callers waiting for a refill when it closes', async () => {
    const s = await server(955);
    const ids = await client({ servers: [s.url], prefetch: true });
    // The first call fetches one id: nothing is left buffered and no refill follows.
    await ids.genId();
    expect(prefetchOf(ids)).toMatchObject({ buffered: 0, refilling: false });
    const waiting = rejection(ids.genId());
    expect(prefetchOf(ids).refilling).toBe(true);
    await ids.close();
    expect((await waiting).code).toBe('SERVICE_CLOSED');
    expect(prefetchOf(ids).buffered).toBe(0);
  });

  it('issues 1,000,000 ids without a repeat to 8 concurrent callers on two clients', async () => {
    const a = await server(956);
    const b = await server(957);
    const clients = [
      await client({ servers: [a.url, b.url], prefetch: true }),
      await client({ servers: [b.url, a.url], prefetch: { maxBatch: 500 } }),
    ];
    const TOTAL = 1_000_000;
    const CALLERS = 4;
    const perCaller = TOTAL / (clients.length * CALLERS);
    const seen = new Set<bigint>();
    let repeats = 0;
    let notIncreasing = 0;
    const caller = async (ids: IdClient, n: number): Promise<void> => {
      for (let got = 0; got < perCaller;) {
        const batch = got % 100 === n ? await ids.genIds(Math.min(16, perCaller - got)) : null;
        if (batch !== null && !increasing(batch)) notIncreasing++;
        for (const id of batch ?? [await ids.genId()]) {
          if (seen.has(id)) repeats++;
          seen.add(id);
          got++;
        }
      }
    };
    await Promise.all(
      clients.flatMap((ids) => Array.from({ length: CALLERS }, (_, n) => caller(ids, n))),
    );
    expect(repeats).toBe(0);
    expect(notIncreasing).toBe(0);
    expect(seen.size).toBe(TOTAL);
    // Batches, not single ids, went over the wire.
    expect((await generates(a)) + (await generates(b))).toBeLessThan(TOTAL / 10);
  }, 120_000);

  it('keeps serving a buffer fetched from a server that then dies, then refills from the others', async () => {
    const servers: ServerProcess[] = [];
    cleanup.push(async () => {
      for (const p of servers) {
        p.child.kill('SIGKILL');
        await p.exited;
      }
    });
    servers.push(await spawnServer({ port: 0, machineId: 958, stateDir: false }));
    servers.push(await spawnServer({ port: 0, machineId: 959, stateDir: false }));
    const time = new ManualTimeSource();
    const ids = await client({
      servers: servers.map((p) => `127.0.0.1:${p.port}`),
      time,
      prefetch: { maxBatch: 1000 },
    });
    const served = [await ids.genId(), await ids.genId()];
    // The second refill: 1 id over the 1 ms floor, times maxAgeMs / 4.
    const buffered = prefetchOf(ids).buffered;
    expect(buffered).toBe(249);
    const holder = ids.expId(served[1] as bigint).machine;
    const dying = servers[holder === 958 ? 0 : 1] as ServerProcess;
    const down = new Promise((resolve) => ids.once('serverDown', resolve));
    dying.child.kill('SIGKILL');
    await dying.exited;
    await down;
    for (let i = 0; i < buffered + 500; i++) served.push(await ids.genId());
    const machines = served.slice(2).map((id) => ids.expId(id).machine);
    expect(machines.slice(0, buffered).every((m) => m === holder)).toBe(true);
    expect(machines.slice(buffered).every((m) => m !== holder)).toBe(true);
    expect(new Set(served).size).toBe(served.length);
    // Manual time: close would wait for a refill in flight on a timer nobody advances.
    await expect.poll(() => prefetchOf(ids).refilling).toBe(false);
  });

  it('serves the buffer of a server that went down before ids from the fallback', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'vesta-prefetch-fallback-'));
    cleanup.push(async () => rmSync(stateDir, { recursive: true, force: true }));
    const s = await server(962);
    const proxy = await startTcpProxy(s.url);
    cleanup.push(() => proxy.close());
    const time = new ManualTimeSource();
    const ids = await client({
      servers: [proxy.address],
      time,
      prefetch: { maxBatch: 100 },
      fallback: { machineId: 44, stateDir },
    });
    const served = [await ids.genId(), await ids.genId()];
    expect(prefetchOf(ids).buffered).toBe(99);
    const down = new Promise((resolve) => ids.once('serverDown', resolve));
    proxy.refuse();
    await down;
    for (let i = 0; i < 200; i++) served.push(await ids.genId());
    const issuers = served.map((id) => {
      const { genMethod, machine } = ids.expId(id);
      return `${genMethod}/${machine}`;
    });
    expect(issuers).toEqual([
      ...Array<string>(101).fill('1/962'),
      ...Array<string>(101).fill('0/44'),
    ]);
    expect(new Set(served).size).toBe(served.length);
    expect(ids.info().mode).toBe('fallback');
    await expect.poll(() => prefetchOf(ids).refilling).toBe(false);
  });
});
