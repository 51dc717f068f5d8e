/*
 * `@vesta/testkit/conformance`: the machine-id provider conformance suite. A subpath of its own:
 * it imports vitest, which the global setups (importing the root) must not load.
 */
export {
  describeCachedLeaseStart,
  type CachedLeaseStartHarness,
  type CachedStartSettings,
  type CachingProvider,
} from './describeCachedLeaseStart.js';
export { describeMachineIdProviderConformance } from './describeMachineIdProviderConformance.js';
export { conformanceProfiles, type ConformanceLeaseTimings } from './conformanceProfiles.js';
export {
  defineMachineIdProviderHarness,
  type ConformanceProviderSettings,
  type ConformanceTimings,
  type MachineIdProviderHarnessSpec,
} from './defineMachineIdProviderHarness.js';
export type {
  ConformanceAllocation,
  ConformanceCoordinator,
  ConformanceLease,
  ConformanceProfile,
  ConformanceProvider,
  ConformanceProviderOptions,
  MachineIdProviderHarness,
} from './MachineIdProviderHarness.js';
export { describeFleetStart } from './describeFleetStart.js';
export type { FleetProvider, FleetStartHarness } from './FleetStartHarness.js';
