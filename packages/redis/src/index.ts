export { RedisMachineIdProvider, type RedisMachineIdStats } from './RedisMachineIdProvider.js';
export { type RedisMachineIdLease, type RedisMachineIdLeaseStats } from './RedisMachineIdLease.js';
export { type RedisMachineIdOptions } from './RedisMachineIdOptions.js';
export { RedisAdmin, type RedisAdminOptions, type RedisMachineIdAllocation } from './RedisAdmin.js';
export { redisMachineIdModule } from './redisMachineIdModule.js';
