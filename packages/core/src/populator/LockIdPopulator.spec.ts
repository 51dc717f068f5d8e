import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { createIdService } from '../service/createIdService.js';
import type { DefaultIdService } from '../service/DefaultIdService.js';

const COUNT = 2_000_000;
const BATCH = 100_000;
const SINGLES = 2_000;

/** How many ids are not above the one before them. */
function countNotIncreasing(ids: readonly bigint[]): number {
  let count = 0;
  let previous = -1n;
  for (const id of ids) {
    if (id <= previous) count++;
    previous = id;
  }
  return count;
}

describe('LockIdPopulator', () => {
  it('issues 2,000,000 ids through concurrent genIds and genId calls on the real clock without a duplicate', async () => {
    const service = await createIdService<DefaultIdService>({ machineId: 13, populator: 'lock' });
    const all = new BigUint64Array(COUNT + SINGLES * 10);
    let filled = 0;
    let previousMax = -1n;
    let disorder = 0;
    while (filled < COUNT) {
      // Two batches and a crowd of single ids race for the same units.
      const round = await Promise.all([
        service.genIds(BATCH),
        ...Array.from({ length: SINGLES / 2 }, () => service.genId()),
        service.genIds(BATCH),
        ...Array.from({ length: SINGLES / 2 }, () => service.genId()),
      ]);
      let roundMin = (1n << 64n) - 1n;
      let roundMax = 0n;
      for (const entry of round) {
        const ids = Array.isArray(entry) ? entry : [entry];
        disorder += countNotIncreasing(ids);
        for (const id of ids) {
          if (id < roundMin) roundMin = id;
          if (id > roundMax) roundMax = id;
          all[filled++] = id;
        }
      }
      // A round issued after the previous one resolved lies wholly above it.
      if (roundMin <= previousMax) disorder++;
      previousMax = roundMax;
    }
    expect(disorder).toBe(0);
    const sorted = all.subarray(0, filled).sort();
    let duplicates = 0;
    for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) duplicates++;
    expect(duplicates).toBe(0);
    expect(filled).toBeGreaterThanOrEqual(COUNT);
    await service.close();
  });

  it('issues single ids in the order they were asked for', async () => {
    const service = await createIdService<DefaultIdService>({
      machineId: 13,
      populator: 'lock',
      type: 'min-granularity',
    });
    const ids = await Promise.all(Array.from({ length: 5000 }, () => service.genId()));
    expect(countNotIncreasing(ids)).toBe(0);
    await service.close();
  });
});
