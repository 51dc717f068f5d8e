import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VestaError } from '../errors/VestaError.js';
import { Timer } from '../time/Timer.js';
import { newClaim, type Claim } from './IdPopulator.js';
import { planClaim } from './BaseIdPopulator.js';
import { caught } from '@vesta/testkit';

const EPOCH = Date.UTC(2025, 0, 1);

/** A timer over a clock the test sets. */
function manualTimer(unitMs: number, timeBits = 30): { timer: Timer; set(ms: number): void } {
  let now = EPOCH;
  return { timer: new Timer(EPOCH, unitMs, timeBits, () => now), set: (ms) => (now = ms) };
}

describe('planClaim', () => {
  it('starts a new unit at sequence 0', () => {
    const { timer, set } = manualTimer(1000);
    set(EPOCH + 7_500);
    const out = newClaim();
    expect(planClaim(timer, 1023, 1000, 6, 500, 10, out)).toBe(true);
    expect(out).toEqual({
      time: 7,
      seq: 0,
      count: 10,
      behindMs: 0,
      borrowed: false,
      atMs: EPOCH + 7_500,
    });
  });

  it('caps a claim in a new unit at the whole sequence', () => {
    const { timer, set } = manualTimer(1000);
    set(EPOCH + 7_000);
    const out = newClaim();
    planClaim(timer, 1023, 1000, 6, 0, 5000, out);
    expect(out).toMatchObject({ time: 7, seq: 0, count: 1024 });
  });

  it('continues the sequence within the same unit, capped at what is left', () => {
    const { timer, set } = manualTimer(1000);
    set(EPOCH + 7_999);
    const out = newClaim();
    expect(planClaim(timer, 1023, 1000, 7, 1000, 50, out)).toBe(true);
    expect(out).toEqual({
      time: 7,
      seq: 1000,
      count: 24,
      behindMs: 0,
      borrowed: false,
      atMs: EPOCH + 7_999,
    });
  });

  it('hands out the last sequence number of a unit', () => {
    const { timer, set } = manualTimer(1);
    set(EPOCH + 7);
    const out = newClaim();
    expect(planClaim(timer, 1023, 1000, 7, 1023, 1, out)).toBe(true);
    expect(out).toMatchObject({ time: 7, seq: 1023, count: 1 });
  });

  it('refuses a used-up unit and names the next one to wait for, while the clock stays in it', () => {
    const { timer, set } = manualTimer(1);
    set(EPOCH + 7);
    const out = newClaim();
    expect(planClaim(timer, 1023, 1000, 7, 1024, 1, out)).toBe(false);
    expect(out).toMatchObject({ time: 8, count: 0 });
    set(EPOCH + 8);
    expect(planClaim(timer, 1023, 1000, 7, 1024, 1, out)).toBe(true);
    expect(out).toMatchObject({ time: 8, seq: 0, count: 1 });
  });

  it.each([
    ['absorbs', 999, true],
    ['absorbs', 1000, true],
    ['refuses', 1001, false],
  ])('%s a step back of %i ms against a tolerance of 1000 ms', (_verb, backMs, absorbed) => {
    const { timer, set } = manualTimer(1);
    set(EPOCH + 10_000 - backMs);
    const out = newClaim();
    if (absorbed) {
      expect(planClaim(timer, 1023, 1000, 10_000, 3, 1, out)).toBe(true);
      expect(out).toEqual({
        time: 10_000,
        seq: 3,
        count: 1,
        behindMs: backMs,
        borrowed: false,
        atMs: EPOCH + 10_000 - backMs,
      });
    } else {
      const error = caught(() => planClaim(timer, 1023, 1000, 10_000, 3, 1, out));
      expect(error.code).toBe('CLOCK_MOVED_BACKWARDS');
      expect(error.details).toMatchObject({ behindMs: backMs, toleranceMs: 1000 });
    }
  });

  it('waits for the unit after the last one when a step back is absorbed and that unit is used up', () => {
    const { timer, set } = manualTimer(1000);
    set(EPOCH + 9_500);
    const out = newClaim();
    expect(planClaim(timer, 1023, 1000, 10, 1024, 1, out)).toBe(false);
    expect(out.time).toBe(11);
  });

  it('refuses a clock before the epoch', () => {
    const { timer, set } = manualTimer(1);
    set(EPOCH - 1);
    expect(caught(() => planClaim(timer, 1023, 1000, 0, 0, 1, newClaim())).code).toBe(
      'CLOCK_BEFORE_EPOCH',
    );
  });

  it('issues in the last unit of the time field and refuses the one after it, never wrapping to 0', () => {
    const { timer, set } = manualTimer(1, 10);
    set(EPOCH + 1023);
    const out = newClaim();
    expect(planClaim(timer, 1023, 1000, 1000, 0, 1, out)).toBe(true);
    expect(out.time).toBe(1023);
    set(EPOCH + 1024);
    const error = caught(() => planClaim(timer, 1023, 1000, 1023, 1, 1, out));
    expect(error.code).toBe('TIME_OVERFLOW');
  });

  describe('planClaim with a lead (maxLeadMs)', () => {
    it('opens the next unit at once when the sequence is used up, capped at a whole sequence', () => {
      const { timer, set } = manualTimer(1000);
      set(EPOCH + 7_400);
      const out = newClaim();
      expect(planClaim(timer, 1023, 1000, 7, 1024, 5000, out, 1000)).toBe(true);
      expect(out).toEqual({
        time: 8,
        seq: 0,
        count: 1024,
        behindMs: 0,
        borrowed: true,
        atMs: EPOCH + 7_400,
      });
    });

    it('continues a borrowed unit without borrowing again, and it is no step back of the clock', () => {
      const { timer, set } = manualTimer(1000);
      set(EPOCH + 7_400);
      const out = newClaim();
      expect(planClaim(timer, 1023, 0, 8, 10, 3, out, 1000)).toBe(true);
      expect(out).toEqual({
        time: 8,
        seq: 10,
        count: 3,
        behindMs: 0,
        borrowed: false,
        atMs: EPOCH + 7_400,
      });
    });

    it.each([
      ['borrows', 600, true],
      ['borrows', 599, true],
      ['waits instead of borrowing', 601, false],
    ])(
      '%s the next unit when it starts %i ms after the clock and maxLeadMs is 600',
      (_verb, aheadMs, borrowed) => {
        const { timer, set } = manualTimer(1000);
        set(EPOCH + 8_000 - aheadMs);
        const out = newClaim();
        expect(planClaim(timer, 1023, 1000, 7, 1024, 1, out, 600)).toBe(borrowed);
        expect(out.time).toBe(8);
        expect(out.borrowed).toBe(borrowed);
      },
    );

    it('waits for the unit after a borrowed one when that one starts beyond the lead', () => {
      const { timer, set } = manualTimer(1);
      set(EPOCH + 100);
      const out = newClaim();
      // Units 101 .. 103 borrowed; 104 starts 4 ms ahead, beyond a lead of 3 ms.
      expect(planClaim(timer, 3, 1000, 103, 4, 1, out, 3)).toBe(false);
      expect(out).toMatchObject({ time: 104, count: 0, borrowed: false });
    });

    it('holds against the tolerance only the distance beyond the lead, and borrows nothing meanwhile', () => {
      const { timer, set } = manualTimer(1);
      const out = newClaim();
      // The last unit used starts 500 + 200 ms ahead of the clock: 200 ms of step back.
      set(EPOCH + 10_000 - 700);
      expect(planClaim(timer, 3, 200, 10_000, 1, 1, out, 500)).toBe(true);
      expect(out).toMatchObject({ time: 10_000, seq: 1, behindMs: 200 });
      expect(planClaim(timer, 3, 200, 10_000, 4, 1, out, 500)).toBe(false);
      expect(out.time).toBe(10_001);
      set(EPOCH + 10_000 - 701);
      const error = caught(() => planClaim(timer, 3, 200, 10_000, 1, 1, out, 500));
      expect(error.code).toBe('CLOCK_MOVED_BACKWARDS');
      expect(error.details).toMatchObject({ behindMs: 201, toleranceMs: 200 });
    });

    it('never borrows past the end of the time field', () => {
      const { timer, set } = manualTimer(1, 10);
      set(EPOCH + 1023);
      const out = newClaim();
      expect(planClaim(timer, 3, 1000, 1023, 4, 1, out, 1000)).toBe(false);
      set(EPOCH + 1022);
      expect(planClaim(timer, 3, 1000, 1022, 4, 1, out, 1000)).toBe(true);
      expect(out).toMatchObject({ time: 1023, borrowed: true });
    });
  });

  it('never claims a (time, sequence) pair twice, whatever the clock does within the tolerance and the lead', () => {
    const step = fc.record({
      moveMs: fc.oneof(fc.constant(0), fc.integer({ min: -1500, max: 2500 })),
      max: fc.integer({ min: 1, max: 6 }),
    });
    fc.assert(
      fc.property(
        fc.constantFrom(1, 1000),
        fc.constantFrom(0, 1, 5, 999, 3000),
        fc.array(step, { minLength: 1, maxLength: 200 }),
        (unitMs, maxLeadMs, steps) => {
          const toleranceMs = 1200;
          let nowMs = EPOCH + 100_000;
          const timer = new Timer(EPOCH, unitMs, 40, () => nowMs);
          const maxSeq = 3;
          let lastTime = 0;
          let nextSeq = 0;
          const out: Claim = newClaim();
          for (const { moveMs, max } of steps) {
            nowMs += moveMs;
            let ok: boolean;
            try {
              ok = planClaim(timer, maxSeq, toleranceMs, lastTime, nextSeq, max, out, maxLeadMs);
            } catch (error) {
              expect(VestaError.is(error, 'CLOCK_MOVED_BACKWARDS')).toBe(true);
              nowMs = timer.toUnixMs(lastTime) - maxLeadMs;
              continue;
            }
            if (!ok) {
              expect(out.time).toBeGreaterThan(lastTime);
              continue;
            }
            expect(out.count).toBeGreaterThanOrEqual(1);
            expect(out.count).toBeLessThanOrEqual(max);
            expect(out.seq + out.count - 1).toBeLessThanOrEqual(maxSeq);
            // A borrowed unit starts at most maxLeadMs after the clock.
            if (out.borrowed)
              expect(timer.toUnixMs(out.time) - nowMs).toBeLessThanOrEqual(maxLeadMs);
            // Strictly after everything claimed before: a later unit, or later in the same unit.
            expect(out.time > lastTime || (out.time === lastTime && out.seq === nextSeq)).toBe(
              true,
            );
            lastTime = out.time;
            nextSeq = out.seq + out.count;
          }
        },
      ),
    );
  });
});
