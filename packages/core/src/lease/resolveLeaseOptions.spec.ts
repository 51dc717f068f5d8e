import { codeOf, ManualTimeSource } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { defineOptions } from '../options/defineOptions.js';
import { leaseOptionsShape } from './leaseOptionsShape.js';
import { resolveLeaseOptions } from './resolveLeaseOptions.js';

const definition = defineOptions('lease', leaseOptionsShape);
const resolve = (input: Record<string, unknown>) => resolveLeaseOptions(definition.resolve(input));
describe('resolveLeaseOptions', () => {
  it('fills the defaults that depend on other options', () => {
    const o = resolve({ fenceAfterMs: 4_000, maxClockSkewMs: 500 });
    expect(o).toMatchObject({
      refreshIntervalMs: 2_000,
      reclaimAfterMs: 120_000,
      ownerWaitMs: 5_000,
      eraWaitMs: 4_000 + 2 * 500 + 1_000,
      fallbackToCache: true,
    });
  });

  it.each([
    ['a fence under twice the refresh interval', { refreshIntervalMs: 1_000, fenceAfterMs: 1_999 }],
    ['a reclaim delay under twice the fence', { fenceAfterMs: 8_000, reclaimAfterMs: 15_999 }],
    ['both clock and time', { clock: () => 0, time: new ManualTimeSource() }],
    ['an unknown option', { fenceAfterMS: 8_000 }],
  ])('refuses %s with INVALID_OPTIONS', (_, input) => {
    expect(codeOf(() => resolve(input))).toBe('INVALID_OPTIONS');
  });

  it('reads time from the time source given, and its wall clock as the clock', () => {
    const time = new ManualTimeSource(1_000_000);
    const o = resolve({ time });
    expect(o.time).toBe(time);
    expect(o.clock()).toBe(1_000_000);
  });
});
