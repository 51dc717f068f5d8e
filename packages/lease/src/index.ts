/*
 * `@vesta/lease`: the coordinator-generic half of leasing a machine id, what the ZooKeeper, Redis,
 * PostgreSQL and etcd providers build on (claim order, reclaim rule, fencing, renewal, era wait,
 * state-dir cache, admin listing and release). Test hooks are on `@vesta/lease/testing`.
 */
export {
  planLeaseClaim,
  type ClaimCandidate,
  type ClaimKind,
  type ClaimPlan,
  type ClaimSnapshot,
} from './planLeaseClaim.js';
export { reclaimOrder, type IdRecord } from './reclaimOrder.js';
export { LeaseFence } from './LeaseFence.js';
export { ABANDON_AFTER_TURNS, RenewalLoop, type RenewalRun } from './RenewalLoop.js';
export { EraWait } from './EraWait.js';
export { eraWaitLog } from './eraWaitLog.js';
export { LeaseCache, type CachedLease } from './LeaseCache.js';
export {
  cachedLeaseFallback,
  type CachedLeaseFallback,
  type CachedLeaseFallbackInput,
} from './cachedLeaseFallback.js';
export {
  leaseOptionsShape,
  resolveLeaseOptions,
  type Filled,
  type LeaseOptionRules,
  type LeaseOptions,
  type LeaseShape,
  type LeaseShapeOutput,
  type ResolvedLease,
  type ResolvedLeaseOptions,
  type SetOptions,
} from './LeaseOptions.js';
export { defineLeaseOptions, type LeaseProviderShape } from './defineLeaseOptions.js';
export { leaseUnitMs } from './leaseUnitMs.js';
export { clockBehindMark } from './clockBehindMark.js';
export {
  enterLeaseEra,
  type LeaseEraHooks,
  type LeaseEraState,
  type LeaseEraStore,
} from './enterLeaseEra.js';
export {
  CoordinatorLease,
  type CoordinatorLeaseStart,
  type CoordinatorLeaseStats,
} from './CoordinatorLease.js';
export type { HoldLoss, HoldRenewal, HoldState, HoldTurn, LeaseHold } from './LeaseHold.js';
export { LeaseProvider, type LeaseClaimStats, type LeaseProviderOptions } from './LeaseProvider.js';
export { machineIdProviderModule } from './machineIdProviderModule.js';
export {
  holdingOf,
  type ClaimRoundState,
  type CoordinatorClock,
  type LeaseClaimant,
  type LeaseHolding,
  type LeaseOpening,
  type LeaseSession,
  type LeaseStartFrom,
  type LeaseStore,
  type StoreRound,
} from './LeaseStore.js';
export { snapshotOfRows, type ClaimRow, type ClaimRowsQuery } from './snapshotOfRows.js';
// What every coordinator's admin shares: the allocation row, the listing, the release rule, init.
export type { LeaseAllocation } from './LeaseAllocation.js';
export { allocationOf, type AllocationRecord } from './allocationOf.js';
export { listAllocations } from './listAllocations.js';
export {
  releaseAllocation,
  type ReleasableAllocation,
  type ReleaseOutcome,
} from './releaseAllocation.js';
export {
  initLeaseStore,
  type LeaseStoreInit,
  type LeaseStoreInitOutcome,
} from './initLeaseStore.js';
export {
  defineAdminOptions,
  type AdminOptionsOf,
  type CoordinatorAdminOptions,
} from './defineAdminOptions.js';
export { withAdminSession, type AdminSession } from './withAdminSession.js';
export { LeaseAdmin, type AdminStore } from './LeaseAdmin.js';
// The lease journal every store keeps, and the tenures it shows (audit, `machine-ids history`).
export {
  decodeJournalEntry,
  encodeJournalEntry,
  type LeaseJournal,
  type LeaseJournalEntry,
} from './LeaseJournal.js';
export { leaseTenures, type LeaseTenure, type TenureEnd } from './leaseTenures.js';
export { historyOf, type LeaseHistory, type LeaseHistoryFilter } from './LeaseHistory.js';
// What every store's client wraps its requests in.
export { withDeadline } from './withDeadline.js';
export { coordinatorUrlOption } from './coordinatorUrlOption.js';
export {
  hostListUrl,
  optionsFromUrl,
  withHostListUrl,
  withUrlOptions,
  type ReadUrl,
} from './optionsFromUrl.js';
export { rereadHeld, type HeldRead } from './rereadHeld.js';
export {
  storeHold,
  type Closable,
  type HeldRecord,
  type HoldVerbs,
  type StoreHoldStart,
} from './storeHold.js';
export { coordinatorPathOption } from './coordinatorPathOption.js';
export {
  defineCoordinator,
  type CoordinatorContext,
  type CoordinatorDescriptor,
  type MachineIdAdmin,
} from './CoordinatorDescriptor.js';
