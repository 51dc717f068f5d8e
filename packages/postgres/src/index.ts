export { PostgresMachineIdProvider } from './PostgresMachineIdProvider.js';
export type { CoordinatorLease as PostgresMachineIdLease } from '@vesta/lease';
export type { CoordinatorLeaseStats as PostgresMachineIdLeaseStats } from '@vesta/lease';
export type { LeaseClaimStats as PostgresMachineIdStats } from '@vesta/lease';
export type { PostgresAdminOptions, PostgresMachineIdOptions } from './PostgresMachineIdOptions.js';
export { PostgresAdmin, type PostgresMachineIdAllocation } from './postgresCoordinator.js';
export { postgresCoordinator, postgresMachineIdModule } from './postgresCoordinator.js';
