export {
  ZooKeeperMachineIdProvider,
  type ZooKeeperMachineIdStats,
} from './ZooKeeperMachineIdProvider.js';
export { ZooKeeperMachineIdLease } from './ZooKeeperMachineIdLease.js';
export {
  checkConnectString,
  checkRoot,
  resolveZooKeeperMachineIdOptions,
  type ResolvedZooKeeperMachineIdOptions,
  type ZooKeeperMachineIdOptions,
} from './ZooKeeperMachineIdOptions.js';
export {
  ZooKeeperAdmin,
  type MachineIdAllocation,
  type ZooKeeperAdminOptions,
} from './ZooKeeperAdmin.js';
