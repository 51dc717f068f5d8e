export { EtcdMachineIdProvider, type EtcdMachineIdStats } from './EtcdMachineIdProvider.js';
export { type EtcdMachineIdLease, type EtcdMachineIdLeaseStats } from './EtcdMachineIdLease.js';
export { type EtcdMachineIdOptions } from './EtcdMachineIdOptions.js';
export { EtcdAdmin, type EtcdAdminOptions, type EtcdMachineIdAllocation } from './EtcdAdmin.js';
export { etcdMachineIdModule } from './etcdMachineIdModule.js';
