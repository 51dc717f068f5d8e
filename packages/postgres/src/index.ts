export {
  PostgresMachineIdProvider,
  type PostgresMachineIdStats,
} from './PostgresMachineIdProvider.js';
export {
  type PostgresMachineIdLease,
  type PostgresMachineIdLeaseStats,
} from './PostgresMachineIdLease.js';
export { type PostgresMachineIdOptions } from './PostgresMachineIdOptions.js';
export {
  PostgresAdmin,
  type PostgresAdminOptions,
  type PostgresMachineIdAllocation,
} from './PostgresAdmin.js';
export { postgresMachineIdModule } from './postgresMachineIdModule.js';
