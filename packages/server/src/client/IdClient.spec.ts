import { describe, expect, it } from 'vitest';
import { probeBackoffMs } from './IdClient.js';

describe('probeBackoffMs', () => {
  it.each([
    [1, 100],
    [2, 200],
    [3, 400],
    [7, 5000],
    [1000, 5000],
  ])(
    'doubles from probeIntervalMs per failure up to the cap: %i failures -> %i ms',
    (failures, ms) => {
      expect(probeBackoffMs(failures, 100, 5000, () => 0.5)).toBe(ms);
    },
  );

  it('jitters by at most a quarter either way', () => {
    expect(probeBackoffMs(3, 100, 5000, () => 0)).toBe(300);
    expect(probeBackoffMs(3, 100, 5000, () => 0.999_999)).toBe(500);
  });
});
