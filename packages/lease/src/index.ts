/* `@vesta/lease`: leasing machine ids from any coordinator; test hooks on `@vesta/lease/testing`. */
export {
  CoordinatorLease,
  enterLeaseEra,
  LeaseProvider,
  type CoordinatorLeaseStats,
  type LeaseClaimStats,
  type LeaseProviderOptions,
} from './LeaseProvider.js';
export {
  holdingOf,
  type ClaimRoundState,
  type ConnectAnswer,
  type EraAnswer,
  type HeldRecord,
  type HoldVerbs,
  type IdWindow,
  type CoordinatorClock,
  type LeaseClaimant,
  type LeaseEraState,
  type LeaseEraStore,
  type LeaseHolding,
  type LeaseSession,
  type LeaseStore,
  type StoreRound,
  type WindowedRounds,
  type WindowQuery,
  type WindowVerbs,
} from './LeaseStore.js';
export { type ClaimCandidate, type ClaimRow, type ClaimSnapshot } from './planLeaseClaim.js';
export {
  coordinatorPathOption,
  coordinatorUrlOption,
  defineAdminOptions,
  defineCoordinatorOptions,
  defineLeaseOptions,
  leaseOptionsShape,
  resolveLeaseOptions,
  type AdminOptionsOf,
  type CoordinatorOptionsSpec,
  type CoordinatorUrlForm,
  type ReadUrl,
  type LeaseOptionRules,
  type LeaseOptions,
  type LeaseProviderShape,
  type LeaseShape,
  type LeaseShapeOutput,
  type ResolvedLease,
  type ResolvedLeaseOptions,
  type SetOptions,
} from './LeaseOptions.js';
export {
  LeaseAdmin,
  listAllocations,
  type AdminRow,
  type AdminStore,
  type LeaseAllocation,
  type LeaseStoreInitOutcome,
  type ReleaseOutcome,
} from './LeaseAdmin.js';
export {
  decodeJournalEntry,
  encodeJournalEntry,
  trimJournal,
  type JournalTrim,
  type LeaseHistory,
  type LeaseJournal,
  type LeaseJournalEntry,
  type LeaseTenure,
} from './LeaseJournal.js';
export { withDeadline } from './withDeadline.js';
export {
  defineCoordinator,
  machineIdProviderModule,
  type CoordinatorContext,
  type CoordinatorDescriptor,
  type MachineIdAdmin,
} from './CoordinatorDescriptor.js';
