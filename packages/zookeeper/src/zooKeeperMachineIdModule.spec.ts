import { describeMachineIdModuleBinding } from '@vesta/testkit/conformance';
import type { ZooKeeperMachineIdOptions } from './ZooKeeperMachineIdOptions.js';
import { zooKeeperMachineIdModule } from './zooKeeperCoordinator.js';
import { ZooKeeperMachineIdProvider } from './ZooKeeperMachineIdProvider.js';

describeMachineIdModuleBinding<ZooKeeperMachineIdOptions>({
  name: 'zooKeeperMachineIdModule',
  module: zooKeeperMachineIdModule,
  provider: ZooKeeperMachineIdProvider,
  options: { connect: '127.0.0.1:2181' },
  refused: [
    ['a root that is no absolute path', { connect: '127.0.0.1:2181', root: 'vesta' }],
    ['an unknown option', { connect: '127.0.0.1:2181', rooot: '/vesta' } as never],
  ],
});
