import { startZooKeeperServer } from '@vesta/testkit';
import {
  defineMachineIdProviderHarness,
  type MachineIdProviderHarness,
} from '@vesta/testkit/conformance';
import { ZooKeeperAdmin } from '../ZooKeeperAdmin.js';
import { ZooKeeperMachineIdProvider } from '../ZooKeeperMachineIdProvider.js';
import { zooKeeperOptions } from '../ZooKeeperMachineIdOptions.js';
import { ZkClient } from '../zk/ZkClient.js';
import { FAST, testRoot } from './zkTestKit.js';

/** The timings of each conformance profile (see MachineIdProviderHarness). */
/** Generous connection deadlines: the suite must hold on a loaded machine (a JVM warming up). */
const PATIENT = { connectTimeoutMs: 15_000, operationTimeoutMs: 5000 } as const;

const PROFILES = {
  fast: { ...FAST, ...PATIENT },
  // Sessions outlive the outage, so that they resume (ZooKeeper restores them from disk).
  outage: {
    ...FAST,
    ...PATIENT,
    sessionTimeoutMs: 20_000,
    reclaimAfterMs: 40_000,
    ownerWaitMs: 22_000,
  },
  // The holder issues for up to fenceAfterMs after its last confirmed write: longer than
  // ZooKeeper takes to come back without its data.
  dataLoss: {
    sessionTimeoutMs: 4000,
    refreshIntervalMs: 500,
    fenceAfterMs: 6000,
    reclaimAfterMs: 12_000,
    ...PATIENT,
    maxClockSkewMs: 500,
    eraWaitMs: 0,
  },
} as const;

/** The conformance harness of {@link ZooKeeperMachineIdProvider} (testkit's contract). */
export const zooKeeperHarness: MachineIdProviderHarness = defineMachineIdProviderHarness({
  name: 'ZooKeeper',
  // wipe(): back on the same port without its data, as a container without a volume.
  startCoordinator: () => startZooKeeperServer(),
  namespace: testRoot,
  profiles: PROFILES,
  defaultEraWaitMs: (t: {
    sessionTimeoutMs: number;
    fenceAfterMs: number;
    maxClockSkewMs?: number;
  }) =>
    zooKeeperOptions.resolve({
      connect: '127.0.0.1:1',
      sessionTimeoutMs: t.sessionTimeoutMs,
      fenceAfterMs: t.fenceAfterMs,
      refreshIntervalMs: 10,
      reclaimAfterMs: 365 * 86_400_000,
      ...(t.maxClockSkewMs === undefined ? {} : { maxClockSkewMs: t.maxClockSkewMs }),
    }).eraWaitMs,
  createProvider: (connect, root, settings) =>
    new ZooKeeperMachineIdProvider({ connect, root, ...settings }),
  admin: (address, namespace) => new ZooKeeperAdmin({ connect: address, root: namespace }),
  dump: async (address, root) => {
    const { zk, whenConnected } = ZkClient.open(address, { ...PATIENT, sessionTimeoutMs: 10_000 });
    try {
      await whenConnected;
      const nodes: string[] = [];
      // Depth first, children in name order; a tree of a few dozen nodes at most.
      const walk = async (path: string): Promise<void> => {
        const node = await zk.getData(path);
        if (node === undefined) return;
        nodes.push(`${path} v${node.stat.version} ${node.data.toString('utf8')}`);
        for (const child of (await zk.getChildren(path)).sort()) await walk(`${path}/${child}`);
      };
      await walk(root);
      return nodes;
    } finally {
      zk.close();
    }
  },
});
