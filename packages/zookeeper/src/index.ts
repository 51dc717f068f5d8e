export {
  ZooKeeperMachineIdProvider,
  type ZooKeeperMachineIdStats,
} from './ZooKeeperMachineIdProvider.js';
export {
  type ZooKeeperMachineIdLease,
  type ZooKeeperMachineIdLeaseStats,
} from './ZooKeeperMachineIdLease.js';
export {
  zooKeeperMachineIdOptions,
  type ZooKeeperMachineIdOptions,
} from './ZooKeeperMachineIdOptions.js';
export {
  ZooKeeperAdmin,
  type MachineIdAllocation,
  type ZooKeeperAdminOptions,
} from './ZooKeeperAdmin.js';
export { zooKeeperMachineIdModule } from './zooKeeperMachineIdModule.js';
