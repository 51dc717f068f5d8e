/*
 * `@vesta/core/kit`: the building blocks of modes, servers and machine-id providers (the
 * workspace's own packages use them; so can yours). Applications need only `@vesta/core`.
 */
export { statusOf } from './errors/statusOf.js';
export { codeOfWire, wireOf } from './errors/wireOf.js';
export { checkBatchCount } from './service/checkBatchCount.js';

export { checkOption, defineOptions, type OptionsDefinition } from './options/defineOptions.js';
export {
  authTokenOption,
  checkedLater,
  functionOption,
  hostOption,
  nonEmptyString,
  objectWith,
  parsedOption,
  portOption,
  scrambleKeyOption,
  typedAs,
  wholeNumber,
} from './options/optionTypes.js';
export { DEFAULT_STATE_DIR, resolveStateDir, serverOptionsShape } from './options/serverOptions.js';
export { defaultMaxConnections, softOpenFilesLimit } from './options/defaultMaxConnections.js';
export { splitOptions } from './options/splitOptions.js';

export { VESTA_FIELD_ORDER, vestaLayoutSpec } from './layout/IdMeta.js';
export { vestaUnitMs } from './layout/standardLayouts.js';
export { layoutOfOptions } from './layout/layoutOfOptions.js';

export { sleep } from './time/sleep.js';
export { sleepOn } from './time/TimeSource.js';
export { Timer } from './time/Timer.js';

export { BaseIdPopulator } from './populator/BaseIdPopulator.js';
export { SHARED_ID_STATE_BYTES } from './populator/SharedIdState.js';

export { checkMachineIdInRange } from './machine-id/checkMachineIdInRange.js';
export { localIpv4Addresses } from './machine-id/localIpv4Addresses.js';

export { MemoryTimeMarkStore } from './state/MemoryTimeMarkStore.js';
export { FileTimeMarkStore } from './state/FileTimeMarkStore.js';
export { HighWaterMark } from './state/HighWaterMark.js';
export { writeFileDurably } from './state/writeFileDurably.js';

export {
  idServiceOptions,
  resolveIdServiceOptions,
  type ResolvedIdServiceOptions,
} from './service/IdServiceOptions.js';
export { DefaultIdService } from './service/DefaultIdService.js';
export { idServiceModule } from './service/idServiceModule.js';

// Coordinator-agnostic lease parts: what a machine-id provider on ZooKeeper, Redis, PostgreSQL
// or etcd builds its lease from (claim order, reclaim rule, fencing, renewal, era wait, cache).
export {
  planLeaseClaim,
  type ClaimCandidate,
  type ClaimKind,
  type ClaimPlan,
  type ClaimSnapshot,
} from './lease/planLeaseClaim.js';
export { reclaimOrder, type IdRecord } from './lease/reclaimOrder.js';
export { LeaseFence } from './lease/LeaseFence.js';
export { RenewalLoop } from './lease/RenewalLoop.js';
export { EraWait } from './lease/EraWait.js';
export { LeaseCache, type CachedLease } from './lease/LeaseCache.js';
export {
  cachedLeaseFallback,
  type CachedLeaseFallback,
  type CachedLeaseFallbackInput,
} from './lease/cachedLeaseFallback.js';
export type { LeaseOptions } from './lease/LeaseOptions.js';
export { leaseOptionsShape } from './lease/leaseOptionsShape.js';
export {
  resolveLeaseOptions,
  type LeaseOptionRules,
  type LeaseShapeOutput,
  type ResolvedLeaseOptions,
} from './lease/resolveLeaseOptions.js';
export { leaseUnitMs } from './lease/leaseUnitMs.js';
export { clockBehindMark } from './lease/clockBehindMark.js';
export { enterLeaseEra, type LeaseEraState, type LeaseEraStore } from './lease/enterLeaseEra.js';
export {
  holdingOf,
  LeaseClaimer,
  type CachedLeaseOf,
  type ClaimRoundState,
  type CoordinatorClock,
  type FencedTake,
  type LeaseClaimant,
  type LeaseHolding,
  type LeaseClaimOptions,
  type LeaseClaimRound,
  type LeaseClaimStats,
  type LeaseOpening,
} from './lease/LeaseClaimer.js';
export {
  abandonLease,
  CoordinatorLease,
  type CoordinatorLeaseStart,
  type CoordinatorLeaseStats,
} from './lease/CoordinatorLease.js';
export { snapshotOfRows, type ClaimRow, type ClaimRowsQuery } from './lease/snapshotOfRows.js';
// What every coordinator's admin shares: the allocation row, the listing, the release rule.
export type { LeaseAllocation } from './lease/LeaseAllocation.js';
export { listAllocations } from './lease/listAllocations.js';
export {
  releaseAllocation,
  type ReleasableAllocation,
  type ReleaseOutcome,
} from './lease/releaseAllocation.js';
export type { CoordinatorAdminOptions } from './lease/CoordinatorAdminOptions.js';
export { defineAdminOptions } from './lease/defineAdminOptions.js';
export { withAdminSession, type AdminSession } from './lease/withAdminSession.js';
export { coordinatorUrlOption } from './lease/coordinatorUrlOption.js';
export { coordinatorPathOption } from './lease/coordinatorPathOption.js';

export { FairIdShare, type FairIdShareOptions } from './fairness/FairIdShare.js';
export { FairIdQueue } from './fairness/FairIdQueue.js';
