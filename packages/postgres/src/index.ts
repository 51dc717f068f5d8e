export { PostgresMachineIdProvider } from './PostgresMachineIdProvider.js';
export type {
  CoordinatorLease as PostgresMachineIdLease,
  CoordinatorLeaseStats as PostgresMachineIdLeaseStats,
  LeaseClaimStats as PostgresMachineIdStats,
} from '@vesta/lease';
export type { PostgresAdminOptions, PostgresMachineIdOptions } from './PostgresMachineIdOptions.js';
export { PostgresAdmin, type PostgresMachineIdAllocation } from './PostgresAdmin.js';
export { postgresCoordinator, postgresMachineIdModule } from './postgresCoordinator.js';
