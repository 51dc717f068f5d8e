import { describe, expect, it } from 'vitest';
import { createEmbeddedIdService } from './createEmbeddedIdService.js';
import { sharedClock, startRequestWorker } from '@vesta/testkit';

const WORKER = new URL('./__fixtures__/issueOnSharedClockWorker.ts', import.meta.url).href;

const T = Date.UTC(2026, 0, 1);
/** Millisecond units of 16 sequence numbers. */
const LAYOUT = { seqBits: 4, versionBits: 7 } as const;
const PER_UNIT = 16;
const THREADS = 4;

function expectStrictlyIncreasing(ids: readonly bigint[]): void {
  for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1] as bigint);
}

describe('worker threads on an atomic shared state with maxLeadMs', () => {
  it(
    'borrow alike: a burst of 10x a unit capacity is served on a stopped clock, and beyond the lead they wait',
    { timeout: 120_000 },
    async () => {
      // The wall clock of every thread: a shared cell the test sets, standing still meanwhile.
      const clock = sharedClock(T);
      const owner = await createEmbeddedIdService({
        machineId: 41,
        populator: 'atomic',
        type: 'min-granularity',
        layout: LAYOUT,
        maxLeadMs: 40,
        rollbackToleranceMs: 0,
        clock: clock.now,
      });
      const config = owner.workerConfig();
      expect(config.maxLeadMs).toBe(40);
      const workers = await Promise.all(
        Array.from({ length: THREADS }, () =>
          startRequestWorker(WORKER, { config, clock: clock.buffer }),
        ),
      );
      const unitOf = (id: bigint): number => owner.transTime(owner.expId(id).time).getTime() - T;

      // 160 ids over 4 threads: units 0 .. 9, none waited (a wait on this clock never ends).
      const burst = await Promise.all(workers.map((w) => w.issue((10 * PER_UNIT) / THREADS)));
      for (const result of burst) {
        expect(result.code).toBeUndefined();
        expectStrictlyIncreasing(result.ids);
      }
      const first = burst.flatMap((r) => r.ids).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      expect(new Set(first).size).toBe(10 * PER_UNIT);
      expect(Math.max(...first.map(unitOf))).toBe(9);
      expect(owner.health()).toEqual({ ok: true, leadMs: 9 });

      // The clock catches up: no lead left.
      clock.set(T + 9);
      expect(owner.health()).toEqual({ ok: true, leadMs: 0 });

      // Asking for more than the lead allows: exactly units 10 .. 49 (40 ms ahead) are issued,
      // then every thread waits for a clock that does not move and gives up.
      const beyond = await Promise.all(workers.map((w) => w.issue(1000)));
      const second = beyond.flatMap((r) => r.ids);
      for (const result of beyond) {
        expect(result.code).toBe('CLOCK_STALLED');
        expectStrictlyIncreasing(result.ids);
      }
      expect(second).toHaveLength(40 * PER_UNIT);
      expect(new Set([...first, ...second]).size).toBe(50 * PER_UNIT);
      expect(Math.min(...second.map(unitOf))).toBe(10);
      expect(Math.max(...second.map(unitOf))).toBe(49);
      expect(owner.health()).toEqual({ ok: true, leadMs: 40 });
      await Promise.all(workers.map((w) => w.stop()));
      await owner.close();
    },
  );
});
