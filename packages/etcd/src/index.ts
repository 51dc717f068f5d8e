export { EtcdMachineIdProvider } from './EtcdMachineIdProvider.js';
export type {
  CoordinatorLease as EtcdMachineIdLease,
  CoordinatorLeaseStats as EtcdMachineIdLeaseStats,
  LeaseClaimStats as EtcdMachineIdStats,
} from '@vesta/lease';
export { type EtcdMachineIdOptions } from './EtcdMachineIdOptions.js';
export { EtcdAdmin, type EtcdAdminOptions, type EtcdMachineIdAllocation } from './EtcdAdmin.js';
export { etcdCoordinator, etcdMachineIdModule } from './etcdCoordinator.js';
