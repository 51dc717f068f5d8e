export { ZooKeeperMachineIdProvider } from './ZooKeeperMachineIdProvider.js';
export type {
  CoordinatorLease as ZooKeeperMachineIdLease,
  CoordinatorLeaseStats as ZooKeeperMachineIdLeaseStats,
  LeaseClaimStats as ZooKeeperMachineIdStats,
} from '@vesta/lease';
export {
  zooKeeperMachineIdOptions,
  type ZooKeeperMachineIdOptions,
} from './ZooKeeperMachineIdOptions.js';
export {
  ZooKeeperAdmin,
  type MachineIdAllocation,
  type ZooKeeperAdminOptions,
} from './ZooKeeperAdmin.js';
export { zooKeeperCoordinator, zooKeeperMachineIdModule } from './zooKeeperCoordinator.js';
