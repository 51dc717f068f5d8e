import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VestaError } from '../errors/VestaError.js';
import { Timer } from '../time/Timer.js';
import { newClaim, type Claim } from './Claim.js';
import { planClaim } from './planClaim.js';
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
    expect(out).toEqual({ time: 7, seq: 0, count: 10, behindMs: 0 });
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
    expect(out).toEqual({ time: 7, seq: 1000, count: 24, behindMs: 0 });
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
      expect(out).toEqual({ time: 10_000, seq: 3, count: 1, behindMs: backMs });
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

  it('never claims a (time, sequence) pair twice, whatever the clock does within the tolerance', () => {
    const step = fc.record({
      moveMs: fc.oneof(fc.constant(0), fc.integer({ min: -1500, max: 2500 })),
      max: fc.integer({ min: 1, max: 6 }),
    });
    fc.assert(
      fc.property(
        fc.constantFrom(1, 1000),
        fc.array(step, { minLength: 1, maxLength: 200 }),
        (unitMs, steps) => {
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
              ok = planClaim(timer, maxSeq, toleranceMs, lastTime, nextSeq, max, out);
            } catch (error) {
              expect(VestaError.is(error, 'CLOCK_MOVED_BACKWARDS')).toBe(true);
              nowMs = timer.toUnixMs(lastTime);
              continue;
            }
            if (!ok) {
              expect(out.time).toBeGreaterThan(lastTime);
              continue;
            }
            expect(out.count).toBeGreaterThanOrEqual(1);
            expect(out.count).toBeLessThanOrEqual(max);
            expect(out.seq + out.count - 1).toBeLessThanOrEqual(maxSeq);
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
