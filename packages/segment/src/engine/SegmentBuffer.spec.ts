import { describe, expect, it } from 'vitest';
import { nextStep } from './SegmentBuffer.js';

describe('nextStep', () => {
  const base = { keyStep: 100, maxStep: 1000, targetMs: 900_000 };

  it.each([
    [200, 0, 400],
    [200, 899_999, 400],
    [800, 1, 1000],
    [1000, 1, 1000],
    [200, 900_000, 200],
    [200, 1_799_999, 200],
    [200, 1_800_000, 100],
    [100, 3_600_000, 100],
    [150, 3_600_000, 100],
  ])('turns step %i after %i ms into %i', (step, elapsedMs, expected) => {
    expect(nextStep({ ...base, step, elapsedMs })).toBe(expected);
  });

  it('keeps the key step when it is above maxStep', () => {
    expect(nextStep({ ...base, keyStep: 5000, step: 5000, elapsedMs: 0 })).toBe(5000);
  });
});
