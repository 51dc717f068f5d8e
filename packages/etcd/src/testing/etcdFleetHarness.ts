import { randomUUID } from 'node:crypto';
import { startEtcdServer } from '@vesta/testkit';
import type { FleetStartHarness } from '@vesta/testkit/conformance';
import { EtcdAdmin } from '../EtcdAdmin.js';
import { EtcdMachineIdProvider } from '../EtcdMachineIdProvider.js';

/**
 * The fleet-start harness of etcd: each start on its own client (its own gRPC connection) to an
 * etcd of the test's own, in 4 processes of 250 starts: grpc-js costs about 0.6-0.8 ms of CPU a
 * call, more than one event loop gives 1,000 starts and their renewals. The child processes import
 * this module for its `fleetStartHarness`. Opt-in (`VESTA_FLEET_ETCD=1`): on the shared 2-core
 * machine the fleet and its renewals need more CPU than it gets within the suite's 60 s (see
 * BENCHMARKS.md, "Claims that scale").
 */
export const fleetStartHarness: FleetStartHarness = {
  name: 'etcd',
  startCoordinator: () => startEtcdServer(),
  namespace: () => `/fleet-${randomUUID().slice(0, 8)}`,
  createProvider: (endpoints, root, key) =>
    new EtcdMachineIdProvider({
      endpoints,
      root,
      key,
      connectTimeoutMs: 15_000,
      // Generous: the suite runs this beside other files on 2 cores.
      operationTimeoutMs: 15_000,
      eraWaitMs: 0,
    }),
  list: (endpoints, root) => new EtcdAdmin({ endpoints, root }).list(),
  processes: { count: 4, module: import.meta.url },
  // Issue 33's etcd target: its client's CPU, not the store, bounds the fleet here.
  measuredWithinMs: 30_000,
  enabled: process.env['VESTA_FLEET_ETCD'] === '1',
};
