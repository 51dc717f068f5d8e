export { EtcdMachineIdProvider } from './EtcdMachineIdProvider.js';
export type {
  CoordinatorLease as EtcdMachineIdLease,
  CoordinatorLeaseStats as EtcdMachineIdLeaseStats,
  LeaseClaimStats as EtcdMachineIdStats,
} from '@vesta/lease';
export type { EtcdAdminOptions, EtcdMachineIdOptions } from './EtcdMachineIdOptions.js';
export { EtcdAdmin, type EtcdMachineIdAllocation } from './EtcdAdmin.js';
export { etcdCoordinator, etcdMachineIdModule } from './etcdCoordinator.js';
