import { decodeUuid } from '@vesta/core';
import { describe, expect, it } from 'vitest';
import { createEmbeddedIdService } from './createEmbeddedIdService.js';
import { runWorker } from '@vesta/testkit';

const WORKER = new URL('./__fixtures__/issueUuidsWorker.ts', import.meta.url).href;

/**
 * A UUID's claim: its first 28 characters, every field but the check and the random bits (the
 * last 32 bits; see core's uuid7Bits). Distinct claims is what the engine promises; the random
 * bits alone would keep most repeated claims apart by chance.
 */
function claimKey(uuid: string): string {
  return uuid.slice(0, 28);
}

interface WorkerResult {
  uuids: string[];
  disorder: number;
}

describe('UUIDv7 from an embedded service', () => {
  it('lets 4 worker threads on one atomic shared state issue 1,000,000 UUIDs without a duplicate', async () => {
    const COUNT = 250_000;
    const main = await createEmbeddedIdService({ machineId: 23, populator: 'atomic' });
    const results = await Promise.all(
      [0, 1, 2, 3].map(() =>
        runWorker<WorkerResult>(WORKER, { config: main.workerConfig(), count: COUNT }),
      ),
    );
    const claims = new Set<string>();
    for (const { uuids, disorder } of results) {
      expect(disorder).toBe(0);
      expect(uuids).toHaveLength(COUNT);
      for (const uuid of uuids) claims.add(claimKey(uuid));
    }
    expect(claims.size).toBe(4 * COUNT);
    // One of every worker's, decoded: all of machine id 23, genMethod 0 (embedded), ours.
    for (const { uuids } of results) {
      expect(decodeUuid(uuids[COUNT - 1] ?? '')).toMatchObject({
        version: 7,
        rfc9562: true,
        vesta: true,
        machine: 23,
        genMethod: 0,
      });
    }
    await main.close();
  });

  it('issues UUIDs strictly increasing, near the time of the call, beside its 64-bit ids', async () => {
    const ids = await createEmbeddedIdService({ machineId: 24 });
    const uuids: string[] = [];
    for (let i = 0; i < 2_000; i++) {
      const before = Date.now();
      const uuid = i % 2 === 0 ? ids.genUuidSync() : await ids.genUuid();
      const after = Date.now();
      const { unixMs } = decodeUuid(uuid);
      expect(unixMs).toBeGreaterThanOrEqual(before);
      expect(unixMs).toBeLessThanOrEqual(after);
      if (uuids.length > 0) expect(uuid > (uuids.at(-1) ?? '')).toBe(true);
      uuids.push(uuid);
      ids.genIdSync();
    }
    const batch = await ids.genUuids(1000);
    expect(new Set([...uuids, ...batch].map(claimKey)).size).toBe(3000);
    expect([...batch].sort()).toEqual(batch);
    expect((batch[0] ?? '') > (uuids.at(-1) ?? '')).toBe(true);
    await ids.close();
  });
});
