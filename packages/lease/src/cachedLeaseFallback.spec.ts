import { describe, expect, it } from 'vitest';
import type { CachedLease } from './LeaseCache.js';
import { cachedLeaseFallback, type CachedLeaseFallbackInput } from './LeaseCache.js';

const NOW = 1_800_000_000_000;
const LEASE: CachedLease = {
  root: '/vesta',
  key: 'k',
  machineId: 3,
  markMs: NOW - 500,
  confirmedAtMs: NOW - 10_000,
  era: 'e1',
};
const input = (over: Partial<CachedLeaseFallbackInput> = {}): CachedLeaseFallbackInput => ({
  fallbackToCache: true,
  cache: { read: () => LEASE },
  key: 'k',
  root: '/vesta',
  range: { min: 0, max: 923 },
  nowMs: NOW,
  unitMs: 1,
  reclaimAfterMs: 120_000,
  fenceAfterMs: 8_000,
  maxClockSkewMs: 1_000,
  maxClockWaitMs: 10_000,
  ...over,
});

describe('cachedLeaseFallback', () => {
  it('starts on the cached id, valid until reclaim − fence − skew after its confirmation, issuing after its mark', () => {
    expect(cachedLeaseFallback(input())).toEqual({
      use: true,
      cached: LEASE,
      validUntilMs: LEASE.confirmedAtMs + 120_000 - 8_000 - 1_000,
      notBeforeMs: LEASE.markMs + 1,
    });
  });

  it.each([
    ['the fallback is off', { fallbackToCache: false }, 'fallbackToCache is off'],
    ['there is no state dir', { cache: undefined }, 'no stateDir'],
    ['nothing is cached', { cache: { read: () => undefined } }, 'no lease for this key'],
    ['another key is cached', { key: 'other' }, 'no lease for this key'],
    ['another root is cached', { root: '/other' }, 'no lease for this key'],
    ['the id is outside the range', { range: { min: 924, max: 1023 } }, 'outside 924-1023'],
    ['the cache is too old', { nowMs: LEASE.confirmedAtMs + 111_000 }, 'too old to be safe'],
  ])('refuses when %s', (_, over, why) => {
    const decision = cachedLeaseFallback(input(over));
    expect(decision.use).toBe(false);
    expect('why' in decision ? decision.why : '').toContain(why);
  });

  it('accepts the cache up to one ms before it may have been reclaimed', () => {
    expect(cachedLeaseFallback(input({ nowMs: LEASE.confirmedAtMs + 110_999 })).use).toBe(true);
  });

  it('does not read the cache when the fallback is off', () => {
    const read = (): CachedLease => {
      throw new Error('read');
    };
    expect(cachedLeaseFallback(input({ fallbackToCache: false, cache: { read } })).use).toBe(false);
  });

  it('reports a clock further behind the cached mark than the wait allows, with the gap', () => {
    const decision = cachedLeaseFallback(input({ nowMs: LEASE.markMs - 20_000 }));
    expect(decision).toEqual({ use: false, clockBehind: { gapMs: 20_001, cached: LEASE } });
  });
});
