import { silentLogger } from '@vesta/core';
import { startZooKeeperEnsemble } from '@vesta/testkit';
import { describeQuorumFaults } from '@vesta/testkit/conformance';
import { ZooKeeperMachineIdProvider } from './ZooKeeperMachineIdProvider.js';

describeQuorumFaults({
  name: 'a ZooKeeper ensemble',
  start: () => startZooKeeperEnsemble(3),
  // A leader change of this ensemble (ticks of 200 ms, syncLimit 5: 1 s to notice, then the
  // election and the clients' reconnect) stays well inside the fence (BENCHMARKS.md).
  timings: { refreshIntervalMs: 500, fenceAfterMs: 3000 },
  provider: (ensemble, root, key, timings) =>
    new ZooKeeperMachineIdProvider({
      connect: ensemble.connect,
      root,
      key,
      ...timings,
      sessionTimeoutMs: 2000,
      operationTimeoutMs: 2000,
      eraWaitMs: 0,
      logger: silentLogger,
    }),
});
