export { RedisMachineIdProvider } from './RedisMachineIdProvider.js';
export type {
  CoordinatorLease as RedisMachineIdLease,
  CoordinatorLeaseStats as RedisMachineIdLeaseStats,
  LeaseClaimStats as RedisMachineIdStats,
} from '@vesta/lease';
export type { RedisAdminOptions, RedisMachineIdOptions } from './RedisMachineIdOptions.js';
export { RedisAdmin, type RedisMachineIdAllocation } from './RedisAdmin.js';
export { redisCoordinator, redisMachineIdModule } from './redisCoordinator.js';
