import { randomUUID } from 'node:crypto';
import { startEtcdServer } from '@vesta/testkit';
import { describeFleetStart } from '@vesta/testkit/conformance';
import { EtcdAdmin } from './EtcdAdmin.js';
import { EtcdMachineIdProvider } from './EtcdMachineIdProvider.js';

// 1,000 starts at once, each on its own client (its own gRPC channel) to an etcd of this file's own.
// Opt-in (VESTA_FLEET_ETCD=1): 1,000 gRPC channels in one process cost about 10-20 ms of CPU per
// start in grpc-js, more than a shared 2-core machine gives this test within its 10 s bound (see
// BENCHMARKS.md, "Claims that scale").
describeFleetStart({
  name: 'etcd',
  startCoordinator: () => startEtcdServer(),
  namespace: () => `/fleet-${randomUUID().slice(0, 8)}`,
  createProvider: (endpoints, root, key) =>
    new EtcdMachineIdProvider({
      endpoints,
      root,
      key,
      connectTimeoutMs: 15_000,
      operationTimeoutMs: 15_000,
      eraWaitMs: 0,
    }),
  list: (endpoints, root) => new EtcdAdmin({ endpoints, root }).list(),
  enabled: process.env['VESTA_FLEET_ETCD'] === '1',
});
