import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { eventually } from '@vesta/testkit';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createSegmentService } from './createSegmentService.js';
import { PostgresSegmentStore } from './postgres/PostgresSegmentStore.js';

const WORKER = fileURLToPath(new URL('./__fixtures__/segmentWorker.ts', import.meta.url));
const url = inject('postgresUrl');
const STEP = 1000;
const BATCH = 100;

const stores: PostgresSegmentStore[] = [];
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
});

describe('a segment service killed with SIGKILL', () => {
  it('loses at most its two buffered segments and a batch, and no number is handed out again', async () => {
    const schema = `seg_crash_${process.pid}`;
    const store = new PostgresSegmentStore({ url, schema });
    stores.push(store);
    await store.createKey('order', { step: STEP });
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', WORKER, JSON.stringify({ url, schema, key: 'order', step: STEP })],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<string | null>((resolve) =>
      child.once('exit', (_, signal) => resolve(signal)),
    );
    let out = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const written = (): bigint[] =>
      out
        .split('\n')
        .filter((line) => line !== '')
        .flatMap((line) => line.split(' ').map(BigInt));
    // Mid-load: several segments claimed and used, one buffered ahead.
    expect(await eventually(() => written().length >= 5 * STEP + 50, 30_000), stderr).toBe(true);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    // A line cut by the kill is not counted: only whole lines (every number a child wrote).
    out = out.slice(0, out.lastIndexOf('\n') + 1);
    const issued = written();
    expect(new Set(issued).size).toBe(issued.length);
    const [info] = await store.keys();
    const max = info?.max ?? 0n;
    const lost = max - BigInt(issued.length);
    expect(lost).toBeGreaterThanOrEqual(0n);
    expect(lost).toBeLessThanOrEqual(BigInt(2 * STEP + BATCH));

    const next = createSegmentService({ store });
    const after = await next.segments('order', 3 * STEP);
    await next.close();
    const seen = new Set(issued);
    expect(after.filter((n) => seen.has(n))).toEqual([]);
    expect(after[0]).toBe(max);
  });
});
