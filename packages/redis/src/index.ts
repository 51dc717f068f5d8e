export { RedisMachineIdProvider } from './RedisMachineIdProvider.js';
export type {
  CoordinatorLease as RedisMachineIdLease,
  CoordinatorLeaseStats as RedisMachineIdLeaseStats,
  LeaseClaimStats as RedisMachineIdStats,
} from '@vesta/lease';
export { type RedisMachineIdOptions } from './RedisMachineIdOptions.js';
export { RedisAdmin, type RedisAdminOptions, type RedisMachineIdAllocation } from './RedisAdmin.js';
export { redisMachineIdModule } from './redisMachineIdModule.js';
export { redisCoordinator } from './redisCoordinator.js';
