import { eventually } from '@vesta/testkit';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createSegmentService } from './createSegmentService.js';
import { PostgresSegmentStore } from './postgres/PostgresSegmentStore.js';
import { SegmentWorkerProcess } from './testing/SegmentWorkerProcess.js';

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
    const child = await SegmentWorkerProcess.start({
      store: 'postgres',
      url,
      namespace: schema,
      keys: ['order'],
      maxStep: STEP,
      batch: BATCH,
    });
    // Mid-load: several segments claimed and used, one buffered ahead.
    expect(await eventually(() => child.count >= 5 * STEP + 50, 30_000), child.stderr).toBe(true);
    expect(await child.kill()).toMatchObject({ signal: 'SIGKILL' });

    // A line cut by the kill is not counted: only whole lines (every number the child wrote).
    const issued = child.all();
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
