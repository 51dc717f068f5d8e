import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { capturingLogger, ManualTimeSource } from '@vesta/testkit';
import { VestaError } from '../errors/VestaError.js';
import type { PopulatorKind } from '../populator/IdPopulator.js';
import { simulateCrash } from '../testing/simulateCrash.js';
import { createIdService } from './createIdService.js';
import type { DefaultIdService } from './DefaultIdService.js';
import type { IdServiceOptions } from './IdServiceOptions.js';

const T = Date.UTC(2026, 0, 1);
/** Milliseconds units of 16 sequence numbers: a burst of 160 ids spans 10 units. */
const LAYOUT = { seqBits: 4, versionBits: 7 } as const;
const PER_UNIT = 16;
const BURST = 10 * PER_UNIT;
const POPULATORS: PopulatorKind[] = ['sync', 'lock', 'atomic'];

// Each service takes a machine id of its own: a service closed earlier in this process leaves a
// mark for its machine id that a later one on the manual clock (back at T) would wait for.
let nextMachineId = 100;

interface Counts {
  exhausted: number;
  borrowed: number[];
  rollbacks: number[];
}

async function build(
  time: ManualTimeSource,
  populator: PopulatorKind,
  options: Partial<IdServiceOptions> = {},
): Promise<{ service: DefaultIdService; counts: Counts }> {
  const counts: Counts = { exhausted: 0, borrowed: [], rollbacks: [] };
  const service = await createIdService<DefaultIdService>({
    machineId: nextMachineId++,
    populator,
    type: 'min-granularity',
    layout: LAYOUT,
    time,
    logger: capturingLogger(),
    maxLeadMs: 10,
    observer: {
      onSequenceExhausted: () => counts.exhausted++,
      onTimeBorrowed: (unitStartMs) => counts.borrowed.push(unitStartMs - T),
      onClockRollback: (behindMs) => counts.rollbacks.push(behindMs),
    },
    ...options,
  });
  return { service, counts };
}

/** `count` single ids, all asked at once; each call's outcome without letting manual time move. */
async function burst(service: DefaultIdService, count: number): Promise<bigint[]> {
  const settled: (bigint | undefined)[] = new Array<bigint | undefined>(count);
  const calls = Array.from({ length: count }, (_, i) =>
    service.genId().then((id) => (settled[i] = id)),
  );
  // Every call not served by now waited for the clock, which did not move.
  await new Promise((resolve) => setImmediate(resolve));
  const served = settled.filter((id): id is bigint => id !== undefined);
  if (served.length < count) {
    throw new Error(`${count - served.length} of ${count} calls waited for the clock`);
  }
  await Promise.all(calls);
  return served;
}

function expectStrictlyIncreasing(ids: readonly bigint[]): void {
  for (let i = 1; i < ids.length; i++) {
    if ((ids[i] as bigint) <= (ids[i - 1] as bigint)) {
      throw new Error(`id ${i} (${ids[i]}) is not above id ${i - 1} (${ids[i - 1]})`);
    }
  }
}

/** The unit of an id relative to T's (units are ms). */
function unitOf(service: DefaultIdService, id: bigint): number {
  return service.transTime(service.expId(id).time).getTime() - T;
}

describe('time borrowing (maxLeadMs)', () => {
  describe.each(POPULATORS)('with the %s populator', (populator) => {
    it('serves a burst of 10x a unit capacity without waiting, then the lead returns to zero as the clock catches up', async () => {
      const time = new ManualTimeSource(T);
      const { service, counts } = await build(time, populator);
      const ids = [...(await burst(service, BURST / 2)), ...(await service.genIds(BURST / 2))];
      expectStrictlyIncreasing(ids);
      expect(new Set(ids).size).toBe(BURST);
      expect(ids.map((id) => unitOf(service, id))).toEqual(
        Array.from({ length: BURST }, (_, i) => Math.floor(i / PER_UNIT)),
      );
      expect(counts.exhausted).toBe(0);
      expect(counts.borrowed).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(service.health()).toEqual({ ok: true, leadMs: 9 });
      expect(service.info()).toMatchObject({ maxLeadMs: 10, leadMs: 9 });

      await time.advance(4);
      expect(service.health()).toEqual({ ok: true, leadMs: 5 });
      await time.advance(5);
      expect(service.health()).toEqual({ ok: true, leadMs: 0 });
      await time.advance(1);
      const after = await service.genId();
      expect(after).toBeGreaterThan(ids.at(-1) as bigint);
      expect(unitOf(service, after)).toBe(10);
      expect(service.info().leadMs).toBe(0);
      await service.close();
    });

    it('waits as without a lead beyond maxLeadMs, and only until the next unit is within the lead', async () => {
      const time = new ManualTimeSource(T);
      const { service, counts } = await build(time, populator);
      // Units 0 .. 10 start at most 10 ms after the clock: 176 ids, then unit 11 is too far.
      const ids = await service.genIds(11 * PER_UNIT);
      expect(counts.exhausted).toBe(0);
      let next: bigint | undefined;
      const waiting = service.genId().then((id) => (next = id));
      await time.advance(0);
      expect(next).toBeUndefined();
      expect(counts.exhausted).toBe(1);
      await time.advanceUntil(() => next !== undefined, 'the call waiting beyond the lead');
      await waiting;
      // Served once unit 11 came within 10 ms of the clock, not when the clock reached it.
      expect(time.now() - T).toBe(1);
      expect(unitOf(service, next as bigint)).toBe(11);
      expectStrictlyIncreasing([...ids, next as bigint]);
      await service.close();
    });

    it('borrows nothing with maxLeadMs 0: the unit after a used-up one is waited for', async () => {
      const time = new ManualTimeSource(T);
      const { service, counts } = await build(time, populator, { maxLeadMs: 0 });
      await service.genIds(PER_UNIT);
      let next: bigint | undefined;
      const waiting = service.genId().then((id) => (next = id));
      await time.advance(0);
      expect(next).toBeUndefined();
      await time.advanceUntil(() => next !== undefined, 'the call waiting for unit 1');
      await waiting;
      expect(unitOf(service, next as bigint)).toBe(1);
      expect(counts).toMatchObject({ exhausted: 1, borrowed: [] });
      expect(service.health()).toEqual({ ok: true });
      expect(service.info()).not.toHaveProperty('maxLeadMs');
      await service.close();
    });

    it('holds against the rollback tolerance only a step back beyond the lead, and never reissues', async () => {
      const time = new ManualTimeSource(T);
      const { service, counts } = await build(time, populator, { rollbackToleranceMs: 2 });
      const ids = await service.genIds(BURST);
      // A lead of 9 ms, beyond the tolerance of 2 ms, is no step back.
      expect(service.health()).toEqual({ ok: true, leadMs: 9 });
      expect(counts.rollbacks).toEqual([]);

      // Stepped back 3 ms: the last unit used (9) starts 12 ms ahead, 2 ms beyond the lead.
      time.stepWall(-3);
      expect(service.health()).toEqual({ ok: true, leadMs: 10 });
      let next: bigint | undefined;
      const waiting = service.genId().then((id) => (next = id));
      await time.advance(0);
      expect(next).toBeUndefined();
      expect(counts.rollbacks).toEqual([2]);
      await time.advanceUntil(() => next !== undefined, 'the call waiting after the step back');
      await waiting;
      expect(unitOf(service, next as bigint)).toBe(10);
      expect(time.now()).toBe(T);
      ids.push(next as bigint);

      // Beyond lead + tolerance: refused, then resumed above every id once the clock is back.
      time.stepWall(-20);
      await expect(service.genId()).rejects.toMatchObject({ code: 'CLOCK_MOVED_BACKWARDS' });
      expect(service.health()).toMatchObject({ ok: false, code: 'CLOCK_MOVED_BACKWARDS' });
      time.stepWall(20);
      ids.push(...(await service.genIds(PER_UNIT - 1)));
      expectStrictlyIncreasing(ids);
      await service.close();
    });
  });

  describe('across a crash', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'vesta-lead-'));
    });
    afterEach(() => {
      rmSync(dir, { recursive: true, force: true });
    });

    it.each(POPULATORS)(
      'restarts above every borrowed unit, leading from the stored mark instead of waiting (%s)',
      async (populator) => {
        const time = new ManualTimeSource(T);
        const machineId = nextMachineId++;
        const options = { machineId, stateDir: dir, maxLeadMs: 6000, markWindowMs: 1 };
        const first = await build(time, populator, options);
        // 4,000 units borrowed: ids up to 3,999 ms ahead of the clock, beyond the mark's window.
        const before: bigint[] = [];
        for (let i = 0; i < 4; i++) before.push(...(await first.service.genIds(1000 * PER_UNIT)));
        expect(unitOf(first.service, before.at(-1) as bigint)).toBe(3999);
        await simulateCrash(first.service);

        // Same clock, same state dir: the mark lies past unit 3,999, within the lead of 6,000 ms.
        // maxStartupWaitMs 0: a start that waited for the clock would fail at once.
        const second = await build(time, populator, { ...options, maxStartupWaitMs: 0 });
        const after = await second.service.genIds(PER_UNIT);
        expect(after[0]).toBeGreaterThan(before.at(-1) as bigint);
        const resumedAt = unitOf(second.service, after[0] as bigint);
        expect(resumedAt).toBeGreaterThanOrEqual(4000);
        expect(second.service.health()).toEqual({ ok: true, leadMs: resumedAt });
        expect(time.now()).toBe(T);
        await second.service.close();
      },
    );
  });

  describe.each(POPULATORS)('property (%s)', (populator) => {
    it('never repeats an id and keeps them strictly increasing over random bursts and clock moves', async () => {
      const move = fc.oneof(
        fc.record({ burst: fc.integer({ min: 1, max: 3 * PER_UNIT }) }),
        fc.record({ advanceMs: fc.integer({ min: 0, max: 15 }) }),
        fc.record({ stepBackMs: fc.integer({ min: 1, max: 25 }) }),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 12 }),
          fc.array(move, { minLength: 1, maxLength: 25 }),
          async (maxLeadMs, moves) => {
            const time = new ManualTimeSource(T);
            const { service } = await build(time, populator, { maxLeadMs, rollbackToleranceMs: 5 });
            const ids: bigint[] = [];
            try {
              for (const m of moves) {
                if ('advanceMs' in m) await time.advance(m.advanceMs);
                else if ('stepBackMs' in m) time.stepWall(-m.stepBackMs);
                else {
                  let done = false;
                  const call = service.genIds(m.burst).then(
                    (batch) => {
                      const nowMs = time.now();
                      for (const id of batch) {
                        const startMs = service.transTime(service.expId(id).time).getTime();
                        // Whatever the clock did, a unit starts at most maxLeadMs + tolerance ahead.
                        expect(startMs - nowMs).toBeLessThanOrEqual(maxLeadMs + 5);
                      }
                      ids.push(...batch);
                    },
                    (error: unknown) => {
                      if (!VestaError.is(error, 'CLOCK_MOVED_BACKWARDS')) throw error;
                    },
                  );
                  void call.finally(() => (done = true));
                  await time.advanceUntil(() => done, 'a burst', 1, 10_000);
                  await call;
                }
              }
              expectStrictlyIncreasing(ids);
            } finally {
              await service.close();
            }
          },
        ),
        { numRuns: 25 },
      );
    });
  });
});
