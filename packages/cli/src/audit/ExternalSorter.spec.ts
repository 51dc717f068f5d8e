import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countDuplicates } from './runAudit.js';
import { ExternalSorter } from './ExternalSorter.js';

const ascending = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

/** Deterministic pseudo-random unsigned 64-bit values (xorshift64*), spread over the whole range. */
function values64(count: number, seed = 88172645463325252n): bigint[] {
  const out: bigint[] = [];
  let x = seed;
  for (let i = 0; i < count; i++) {
    x ^= x >> 12n;
    x ^= BigInt.asUintN(64, x << 25n);
    x ^= x >> 27n;
    out.push(BigInt.asUintN(64, x * 2685821657736338717n));
  }
  return out;
}

describe('ExternalSorter', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vesta-sorter-spec-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('sorts 50,000 ids through 10 run files and finds duplicates planted in different runs', async () => {
    const ids = values64(50_000);
    // Copies of the first id and of one in the middle, at the end: three runs apart.
    const planted = [ids[0] as bigint, ids[25_000] as bigint];
    const input = [...ids.slice(0, 49_998), ...planted];
    const sorter = new ExternalSorter({ bits: 64, runSize: 5000, tempDir: dir });
    for (const id of input) sorter.add(id);
    const sorted = [...sorter.sorted()];
    expect(sorter.stats()).toEqual({ runs: 10, tempBytes: 50_000 * 8 });
    expect(sorted).toEqual([...input].sort(ascending));
    const sorter2 = new ExternalSorter({ bits: 64, runSize: 5000, tempDir: dir });
    for (const id of input) sorter2.add(id);
    expect(await countDuplicates(sorter2.sorted(), 10)).toEqual({
      count: 2,
      distinct: 2,
      examples: planted.sort(ascending).map((value) => ({ value, times: 2 })),
    });
    sorter.close();
    sorter2.close();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('merges in passes when there are more runs than its fan-in', () => {
    const ids = values64(20_000, 7n);
    const sorter = new ExternalSorter({ bits: 64, runSize: 1000, fanIn: 3, tempDir: dir });
    for (const id of ids) sorter.add(id);
    expect([...sorter.sorted()]).toEqual([...ids].sort(ascending));
    // 20 runs, merged 3 at a time into longer runs until 3 are left: 9 more run files.
    expect(sorter.stats().runs).toBe(29);
    sorter.close();
  });

  it('sorts 128-bit values (UUIDs) across runs, both halves compared', () => {
    const highs = values64(3000, 3n);
    const values = highs.flatMap((high, i) => [
      (high << 64n) | BigInt(i),
      (high << 64n) | ((1n << 64n) - 1n - BigInt(i)),
    ]);
    const sorter = new ExternalSorter({ bits: 128, runSize: 500, tempDir: dir });
    for (const value of values) sorter.add(value);
    expect([...sorter.sorted()]).toEqual([...values].sort(ascending));
    expect(sorter.stats().runs).toBe(12);
    sorter.close();
  });

  it('sorts what fits in one run in memory, writing nothing', () => {
    const sorter = new ExternalSorter({ bits: 64, tempDir: dir });
    for (const id of [3n, (1n << 64n) - 1n, 0n, 3n]) sorter.add(id);
    expect([...sorter.sorted()]).toEqual([0n, 3n, 3n, (1n << 64n) - 1n]);
    expect(sorter.stats()).toEqual({ runs: 0, tempBytes: 0 });
    expect(readdirSync(dir)).toEqual([]);
  });

  it.each([
    [{ runSize: 0 }, 'runSize'],
    [{ runSize: 1.5 }, 'runSize'],
    [{ fanIn: 1 }, 'fanIn'],
  ])('refuses %j with INVALID_OPTIONS naming %s', (options, name) => {
    expect(() => new ExternalSorter({ bits: 64, ...options })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS', message: expect.stringContaining(name) }),
    );
  });

  it('gives every value back in order, whatever the run size and fan-in', () => {
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), { maxLength: 300 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 2, max: 5 }),
        (values, runSize, fanIn) => {
          const sorter = new ExternalSorter({ bits: 64, runSize, fanIn, tempDir: dir });
          try {
            for (const value of values) sorter.add(value);
            expect([...sorter.sorted()]).toEqual([...values].sort(ascending));
          } finally {
            sorter.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
