export { PostgresMachineIdProvider } from './PostgresMachineIdProvider.js';
export type {
  CoordinatorLease as PostgresMachineIdLease,
  CoordinatorLeaseStats as PostgresMachineIdLeaseStats,
  LeaseClaimStats as PostgresMachineIdStats,
} from '@vesta/lease';
export { type PostgresMachineIdOptions } from './PostgresMachineIdOptions.js';
export {
  PostgresAdmin,
  type PostgresAdminOptions,
  type PostgresMachineIdAllocation,
} from './PostgresAdmin.js';
export { postgresMachineIdModule } from './postgresMachineIdModule.js';
export { postgresCoordinator } from './postgresCoordinator.js';
