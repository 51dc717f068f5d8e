import { spawn } from 'node:child_process';
import { silentLogger } from '@vesta/core';
import { RedisSegmentStore } from '@vesta/segment';
import { createIdClient } from '@vesta/server';
import {
  freePort,
  rejection,
  runToExit,
  startRedisServer,
  VESTA_CLI,
  type RedisServer,
} from '@vesta/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnVesta } from '../testing/spawnVesta.js';

/** How long `vesta segment` may take to give up on a store that is down (start-up included). */
const DOWN_EXIT_DEADLINE_MS = 20_000;

let redis: RedisServer;
let store: RedisSegmentStore;

beforeAll(async () => {
  redis = await startRedisServer();
  store = new RedisSegmentStore({ url: redis.url });
  await store.createKey('order', { step: 50, start: 1n });
  await store.createKey('ticket', { step: 50, start: 1n });
});
afterAll(async () => {
  await store?.close();
  await redis?.stop();
});

describe('segment mode on the command line (--segment-store, vesta segment)', () => {
  it("serves a key's numbers at Leaf's path and /segment/{key}, and hands the unused rest back on SIGTERM", async () => {
    const rest = spawnVesta('rest', [
      '--port',
      '0',
      '--machine-id',
      '1000',
      '--no-state-dir',
      '--segment-store',
      redis.url,
    ]);
    try {
      const port = await rest.listening;
      const texts: string[] = [];
      for (let i = 0; i < 5; i++) {
        const answer = await fetch(`http://127.0.0.1:${port}/api/segment/get/order`);
        expect(answer.status).toBe(200);
        texts.push(await answer.text());
      }
      expect(texts).toEqual(['1', '2', '3', '4', '5']);
      const json = await fetch(`http://127.0.0.1:${port}/segment/order`);
      expect(await json.json()).toEqual({ id: '6' });
    } finally {
      expect(await rest.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    }
    // The rest of its segment (and the next, prefetched) came back: the next claim starts at 7.
    const next = await store.claim('order');
    expect(next).toMatchObject({ start: 7n, handedBack: true });
  });

  it('refuses an unknown store scheme with INVALID_OPTIONS, with one worker or several', async () => {
    const wrong = spawnVesta('rest', [
      '--port',
      '0',
      '--no-state-dir',
      '--segment-store',
      'mysql://x',
    ]);
    expect((await wrong.exited).code).toBe(1);
    expect(wrong.stderr()).toMatch(
      /INVALID_OPTIONS: --segment-store must be a postgres:\/\/ or redis:\/\//,
    );
    const workers = spawnVesta('rest', [
      '--port',
      '0',
      '--no-state-dir',
      '--machine-ids',
      '960-961',
      '--workers',
      '2',
      '--segment-store',
      'mysql://x',
    ]);
    expect((await workers.exited).code).toBe(1);
    expect(workers.stderr()).toMatch(
      /INVALID_OPTIONS: --segment-store must be a postgres:\/\/ or redis:\/\//,
    );
  });

  it('serves from 2 workers, each with its own ranges: 400 concurrent requests, no number twice, and every unused number handed back on SIGTERM', async () => {
    await store.createKey('receipt', { step: 20, start: 1n });
    const rest = spawnVesta('rest', [
      '--port',
      '0',
      '--no-state-dir',
      '--machine-ids',
      '960-961',
      '--workers',
      '2',
      '--segment-store',
      redis.url,
    ]);
    const served: bigint[] = [];
    try {
      const port = await rest.listening;
      for (let round = 0; round < 8; round++) {
        const answers = await Promise.all(
          Array.from({ length: 50 }, async (_, i) => {
            const path = i % 2 === 0 ? '/segment/receipt' : '/api/segment/get/receipt';
            // A store slower than maxWaitMs (a loaded machine) is a 503 while its claim goes
            // on: a client asks again, and the next ask is served from that claim.
            let answer = await fetch(`http://127.0.0.1:${port}${path}`);
            for (let attempt = 1; answer.status === 503 && attempt < 5; attempt++) {
              expect(await answer.text()).toContain('COORDINATOR_UNAVAILABLE');
              answer = await fetch(`http://127.0.0.1:${port}${path}`);
            }
            expect(answer.status).toBe(200);
            const text = await answer.text();
            return BigInt(i % 2 === 0 ? (JSON.parse(text) as { id: string }).id : text);
          }),
        );
        served.push(...answers);
      }
      expect(new Set(served).size).toBe(400);
      // /metrics sums the workers'.
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(text).toContain('vesta_segment_numbers_served_total{key="receipt"} 400');
    } finally {
      expect(await rest.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    }
    // Every number claimed is either served or handed back: the handed-back ranges come first,
    // then a fresh one; with the served numbers they tile [1, fresh start) without a gap or overlap.
    const pieces: [bigint, bigint][] = served.map((n) => [n, n + 1n]);
    let fresh: bigint | undefined;
    for (let i = 0; i < 10 && fresh === undefined; i++) {
      const claim = await store.claim('receipt');
      if (claim.handedBack) pieces.push([claim.start, claim.end]);
      else fresh = claim.start;
    }
    expect(fresh).toBeDefined();
    pieces.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    let next = 1n;
    for (const [start, end] of pieces) {
      expect(start).toBe(next);
      next = end;
    }
    expect(next).toBe(fresh);
  });

  it('vesta server serves SEGMENT from --segment-store, counts it in /metrics, and hands the unused rest back on SIGTERM', async () => {
    const metricsPort = await freePort();
    const server = spawnVesta('server', [
      '--port',
      '0',
      '--machine-id',
      '1000',
      '--no-state-dir',
      '--metrics-port',
      String(metricsPort),
      '--segment-store',
      redis.url,
    ]);
    try {
      const port = await server.listening;
      const client = await createIdClient({ servers: [`127.0.0.1:${port}`], logger: silentLogger });
      try {
        expect(await client.segment('ticket')).toBe(1n);
        expect(await client.segments('ticket', 4)).toEqual([2n, 3n, 4n, 5n]);
        expect((await rejection(client.segment('nobody'))).code).toBe('SEGMENT_KEY_UNKNOWN');
        const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
        expect(text).toContain('vesta_segment_numbers_served_total{key="ticket"} 5');
        expect(text).toContain('vesta_segment_fetches_total{key="ticket",outcome="fresh"}');
        expect(text).toContain('vesta_segment_buffered_numbers{key="ticket"}');
      } finally {
        await client.close();
      }
    } finally {
      expect(await server.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    }
    expect(await store.claim('ticket')).toMatchObject({ start: 6n, handedBack: true });
  });

  it('vesta segment creates keys, lists them and sets a step, one JSON line each', async () => {
    const segment = (...args: string[]) =>
      runToExit(
        process.execPath,
        [...VESTA_CLI, 'segment', ...args, '--store', redis.url],
        process.cwd(),
      );
    const created = await segment('create', 'invoice', '--step', '20', '--start', '100');
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toEqual({
      key: 'invoice',
      created: true,
      step: 20,
      start: '100',
    });
    const again = await segment('create', 'invoice', '--step', '5');
    expect(JSON.parse(again.stdout)).toMatchObject({ key: 'invoice', created: false });
    expect((await segment('set-step', 'invoice', '40')).code).toBe(0);
    const keys = await segment('keys');
    expect(keys.code).toBe(0);
    const listed = keys.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { key: string; step: number; next: string });
    expect(listed.find((k) => k.key === 'invoice')).toEqual({
      key: 'invoice',
      step: 40,
      next: '100',
    });
    expect(listed.map((k) => k.key)).toContain('order');
    const unknown = await segment('set-step', 'nope', '10');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^vesta segment: SEGMENT_KEY_UNKNOWN: /m);
    const badStep = await segment('create', 'x', '--step', '0');
    expect(badStep.code).toBe(1);
    expect(badStep.stderr).toMatch(/INVALID_ARGUMENT: --step must be a whole number of at least 1/);
  });

  it('vesta segment on a Redis that is down reports COORDINATOR_UNAVAILABLE and exits 1', async () => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [...VESTA_CLI, 'segment', 'keys', '--store', `redis://127.0.0.1:${port}`],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const bound = setTimeout(() => child.kill('SIGKILL'), DOWN_EXIT_DEADLINE_MS);
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
      child.once('close', (code, signal) => done({ code, signal })),
    );
    clearTimeout(bound);
    expect(stderr).toMatch(/^vesta segment: COORDINATOR_UNAVAILABLE: /m);
    expect(exit).toEqual({ code: 1, signal: null });
  }, 60_000);
});
