import { describe, expect, it } from 'vitest';
import { conformanceProfiles } from './conformanceProfiles.js';

describe('conformanceProfiles', () => {
  it('puts the common options in every profile and a profile override on top', () => {
    const profiles = conformanceProfiles(
      { connectTimeoutMs: 5000, ownerWaitMs: 1 },
      { outage: { ownerWaitMs: 22_000, leaseTtlMs: 20_000 } },
    );
    expect(profiles.fast).toEqual({
      refreshIntervalMs: 100,
      fenceAfterMs: 400,
      reclaimAfterMs: 1200,
      ownerWaitMs: 1,
      connectTimeoutMs: 5000,
    });
    expect(profiles.outage).toMatchObject({
      reclaimAfterMs: 40_000,
      ownerWaitMs: 22_000,
      leaseTtlMs: 20_000,
    });
    expect(profiles.dataLoss).toMatchObject({
      fenceAfterMs: 6000,
      maxClockSkewMs: 500,
      ownerWaitMs: 1,
    });
  });

  it('keeps each profile bound below the next: fence < reclaim, and the data-loss fence long', () => {
    for (const t of Object.values(conformanceProfiles({}))) {
      expect(t.refreshIntervalMs).toBeLessThan(t.fenceAfterMs);
      expect(t.fenceAfterMs).toBeLessThan(t.reclaimAfterMs);
    }
    expect(conformanceProfiles({}).dataLoss.fenceAfterMs).toBeGreaterThanOrEqual(5000);
  });
});
