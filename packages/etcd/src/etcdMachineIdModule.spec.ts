import { describeMachineIdModuleBinding } from '@vesta/testkit/conformance';
import type { EtcdMachineIdOptions } from './EtcdMachineIdOptions.js';
import { etcdMachineIdModule } from './etcdCoordinator.js';
import { EtcdMachineIdProvider } from './EtcdMachineIdProvider.js';

describeMachineIdModuleBinding<EtcdMachineIdOptions>({
  name: 'etcdMachineIdModule',
  module: etcdMachineIdModule,
  provider: EtcdMachineIdProvider,
  options: { endpoints: '127.0.0.1:2379' },
  refused: [
    ['a root that is no absolute path', { endpoints: '127.0.0.1:2379', root: 'vesta' }],
    ['an unknown option', { endpoints: '127.0.0.1:2379', rooot: '/vesta' } as never],
  ],
});
