import type { ConformanceProfile } from './MachineIdProviderHarness.js';

/** The lease timings a profile sets on a provider. */
export interface ConformanceLeaseTimings {
  readonly refreshIntervalMs: number;
  readonly fenceAfterMs: number;
  readonly reclaimAfterMs: number;
  readonly ownerWaitMs: number;
  readonly maxClockSkewMs?: number;
}

/** Short timings, as most coordinators take them (see {@link ConformanceProfile}). */
const BASE: Readonly<Record<ConformanceProfile, ConformanceLeaseTimings>> = {
  fast: { refreshIntervalMs: 100, fenceAfterMs: 400, reclaimAfterMs: 1200, ownerWaitMs: 1500 },
  // Nobody may reclaim while the coordinator is down.
  outage: { refreshIntervalMs: 100, fenceAfterMs: 400, reclaimAfterMs: 40_000, ownerWaitMs: 2000 },
  // The holder issues for up to fenceAfterMs after its last confirmed renewal.
  dataLoss: {
    refreshIntervalMs: 500,
    fenceAfterMs: 6000,
    reclaimAfterMs: 12_000,
    ownerWaitMs: 7000,
    maxClockSkewMs: 500,
  },
};

/**
 * The provider options of each profile: the suite's usual lease timings, with `common` (connection
 * deadlines...) in every profile and a coordinator's own `overrides` per profile on top.
 */
export function conformanceProfiles<
  C extends object,
  F extends object = object,
  O extends object = object,
  D extends object = object,
>(
  common: C,
  overrides: { readonly fast?: F; readonly outage?: O; readonly dataLoss?: D } = {},
): {
  readonly fast: ConformanceLeaseTimings & C & F;
  readonly outage: ConformanceLeaseTimings & C & O;
  readonly dataLoss: ConformanceLeaseTimings & C & D;
} {
  return {
    fast: { ...BASE.fast, ...common, ...(overrides.fast as F) },
    outage: { ...BASE.outage, ...common, ...(overrides.outage as O) },
    dataLoss: { ...BASE.dataLoss, ...common, ...(overrides.dataLoss as D) },
  };
}
