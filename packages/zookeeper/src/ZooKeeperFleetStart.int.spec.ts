import { startZooKeeperServer } from '@vesta/testkit';
import { describeFleetStart } from '@vesta/testkit/conformance';
import { testRoot } from './testing/zkTestKit.js';
import { ZooKeeperAdmin } from './ZooKeeperAdmin.js';
import { ZooKeeperMachineIdProvider } from './ZooKeeperMachineIdProvider.js';

// 1,000 starts at once, each with its own session, against a ZooKeeper of this file's own.
describeFleetStart({
  name: 'ZooKeeper',
  startCoordinator: () => startZooKeeperServer(),
  namespace: testRoot,
  createProvider: (connect, root, key) =>
    new ZooKeeperMachineIdProvider({
      connect,
      root,
      key,
      connectTimeoutMs: 15_000,
      operationTimeoutMs: 15_000,
      eraWaitMs: 0,
    }),
  list: (connect, root) => new ZooKeeperAdmin({ connect, root }).list(),
});
