import { silentLogger } from '@vesta/core';
import { describeMachineIdModule } from '@vesta/testkit/conformance';
import { inject } from 'vitest';
import { testRoot } from './testing/zkTestKit.js';
import { ZooKeeperAdmin } from './ZooKeeperAdmin.js';
import { zooKeeperMachineIdModule } from './zooKeeperCoordinator.js';
import { ZooKeeperMachineIdProvider } from './ZooKeeperMachineIdProvider.js';

const connect = inject('zookeeperConnect');

describeMachineIdModule({
  name: 'ZooKeeper',
  namespace: testRoot,
  module: (root, key) =>
    zooKeeperMachineIdModule({ connect, root, logger: silentLogger, ...(key && { key }) }),
  eraOpener: (root) =>
    new ZooKeeperMachineIdProvider({ connect, root, eraWaitMs: 0, logger: silentLogger }),
  list: (root) => new ZooKeeperAdmin({ connect, root }).list(),
});
