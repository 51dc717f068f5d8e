import { silentLogger } from '@vesta/core';
import { startEtcdCluster } from '@vesta/testkit';
import { describeQuorumFaults } from '@vesta/testkit/conformance';
import { EtcdMachineIdProvider } from './EtcdMachineIdProvider.js';

describeQuorumFaults({
  name: 'an etcd cluster',
  start: () => startEtcdCluster(3),
  timings: { refreshIntervalMs: 500, fenceAfterMs: 3000 },
  provider: (cluster, root, key, timings) =>
    new EtcdMachineIdProvider({
      endpoints: cluster.endpoints,
      root,
      key,
      ...timings,
      operationTimeoutMs: 2000,
      eraWaitMs: 0,
      logger: silentLogger,
    }),
});
