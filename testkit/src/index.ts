export { ManualTimeSource } from './ManualTimeSource.js';
export {
  startZooKeeperServer,
  type ZooKeeperServer,
  type ZooKeeperServerOptions,
} from './startZooKeeperServer.js';
