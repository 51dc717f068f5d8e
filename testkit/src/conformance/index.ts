/*
 * `@vesta/testkit/conformance`: the machine-id provider conformance suite, and the specs every
 * coordinator's or mode's module shares. A subpath of its own: it imports vitest, which the global
 * setups (importing the root) must not load.
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
export { describeMachineIdModule, type MachineIdModuleHarness } from './describeMachineIdModule.js';
export {
  describeMachineIdModuleBinding,
  type MachineIdModuleBindingHarness,
} from './describeMachineIdModuleBinding.js';
export { modeModuleServices, type ModeModuleServices } from './modeModuleServices.js';
export {
  describeServerModeModule,
  type ServerModeModuleHarness,
} from './describeServerModeModule.js';
export {
  describeQuorumFaults,
  type Quorum,
  type QuorumFaultsHarness,
} from './describeQuorumFaults.js';
