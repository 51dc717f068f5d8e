import { randomUUID } from 'node:crypto';
import { silentLogger } from '@vesta/core';
import { describeMachineIdModule } from '@vesta/testkit/conformance';
import { inject } from 'vitest';
import { EtcdAdmin } from './EtcdAdmin.js';
import { etcdMachineIdModule } from './etcdCoordinator.js';
import { EtcdMachineIdProvider } from './EtcdMachineIdProvider.js';

const endpoints = inject('etcdEndpoints');

describeMachineIdModule({
  name: 'etcd',
  namespace: () => `/etcd-module-${randomUUID().slice(0, 8)}`,
  module: (root, key) =>
    etcdMachineIdModule({ endpoints, root, logger: silentLogger, ...(key && { key }) }),
  eraOpener: (root) =>
    new EtcdMachineIdProvider({ endpoints, root, eraWaitMs: 0, logger: silentLogger }),
  list: (root) => new EtcdAdmin({ endpoints, root }).list(),
});
