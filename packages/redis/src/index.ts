export { RedisMachineIdProvider } from './RedisMachineIdProvider.js';
export type { CoordinatorLease as RedisMachineIdLease } from '@vesta/lease';
export type { CoordinatorLeaseStats as RedisMachineIdLeaseStats } from '@vesta/lease';
export type { LeaseClaimStats as RedisMachineIdStats } from '@vesta/lease';
export type { RedisAdminOptions, RedisMachineIdOptions } from './RedisMachineIdOptions.js';
export { RedisAdmin, redisCoordinator, redisMachineIdModule } from './redisCoordinator.js';
export type { LeaseAllocation as RedisMachineIdAllocation } from '@vesta/lease';
