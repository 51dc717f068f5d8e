import { codeOf, ManualTimeSource } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineOptions } from '@vesta/core/kit';
import { leaseOptionsShape, resolveLeaseOptions } from './LeaseOptions.js';

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
    ['a journal too large to read back', { journalRetention: 1_000_001 }],
  ])('refuses %s with INVALID_OPTIONS', (_, input) => {
    expect(codeOf(() => resolve(input))).toBe('INVALID_OPTIONS');
  });

  it('reads time from the time source given, and its wall clock as the clock', () => {
    const time = new ManualTimeSource(1_000_000);
    const o = resolve({ time });
    expect(o.time).toBe(time);
    expect(o.clock()).toBe(1_000_000);
  });

  it('takes the defaults a provider derives from its own options', () => {
    const o = resolveLeaseOptions(
      definition.resolve({ fenceAfterMs: 4_000, maxClockSkewMs: 500 }),
      {
        ownerWaitMs: 12_000,
        holderOutlivesMs: 10_000,
      },
    );
    expect(o).toMatchObject({ ownerWaitMs: 12_000, eraWaitMs: 10_000 + 2 * 500 + 1_000 });
  });

  it('keeps given waits over the derived defaults', () => {
    const o = resolveLeaseOptions(definition.resolve({ ownerWaitMs: 0, eraWaitMs: 0 }), {
      ownerWaitMs: 12_000,
      holderOutlivesMs: 10_000,
    });
    expect(o).toMatchObject({ ownerWaitMs: 0, eraWaitMs: 0 });
  });

  it('refuses a reclaim delay under a provider’s further bound, naming it', () => {
    const o = definition.resolve({ reclaimAfterMs: 20_000 });
    expect(() =>
      resolveLeaseOptions(o, { reclaimAtLeast: { sessionTimeoutMs: 20_000 } }),
    ).not.toThrow();
    expect(() => resolveLeaseOptions(o, { reclaimAtLeast: { sessionTimeoutMs: 20_001 } })).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPTIONS',
        message: expect.stringContaining('at least sessionTimeoutMs (20001)') as unknown,
      }),
    );
  });

  it('does not fall back to a cache when the provider declares no fallbackToCache', () => {
    const noCache = defineOptions(
      'lease',
      z.object(leaseOptionsShape).omit({ fallbackToCache: true }).shape,
    );
    expect(resolveLeaseOptions(noCache.resolve({})).fallbackToCache).toBe(false);
  });
});
