import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startZooKeeperServer } from '@vesta/testkit';
import type {
  ConformanceLease,
  ConformanceProfile,
  MachineIdProviderHarness,
} from '@vesta/testkit/conformance';
import { ZooKeeperAdmin } from '../ZooKeeperAdmin.js';
import type { ZooKeeperMachineIdLease } from '../ZooKeeperMachineIdLease.js';
import { ZooKeeperMachineIdProvider } from '../ZooKeeperMachineIdProvider.js';
import { resolveZooKeeperMachineIdOptions } from '../ZooKeeperMachineIdOptions.js';
import { leaseControl } from './leaseControl.js';
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

/** The default era wait of a profile's timings. */
const defaultEraWaitMs = (profile: ConformanceProfile): number => {
  const t: { sessionTimeoutMs: number; fenceAfterMs: number; maxClockSkewMs?: number } =
    PROFILES[profile];
  const skew = t.maxClockSkewMs === undefined ? {} : { maxClockSkewMs: t.maxClockSkewMs };
  return resolveZooKeeperMachineIdOptions({
    connect: '127.0.0.1:1',
    sessionTimeoutMs: t.sessionTimeoutMs,
    fenceAfterMs: t.fenceAfterMs,
    refreshIntervalMs: 10,
    reclaimAfterMs: 365 * 86_400_000,
    ...skew,
  }).eraWaitMs;
};

/** The conformance harness of {@link ZooKeeperMachineIdProvider} (testkit's contract). */
export const zooKeeperHarness: MachineIdProviderHarness = {
  name: 'ZooKeeper',
  async startCoordinator() {
    const server = await startZooKeeperServer();
    return {
      address: server.connect,
      stop: (options) => server.stop(options),
      restart: () => server.restart(),
      async wipe() {
        // Back on the same port without its data, as a container without a volume.
        await server.stop({ kill: true });
        const dataDir = join(server.dataDir, 'data');
        rmSync(dataDir, { recursive: true, force: true });
        mkdirSync(dataDir);
        await server.restart();
      },
      dispose: () => server.dispose(),
    };
  },
  namespace: testRoot,
  createProvider(o) {
    return new ZooKeeperMachineIdProvider({
      connect: o.address,
      root: o.namespace,
      ...PROFILES[o.profile],
      ...(o.eraWait === 'default' ? { eraWaitMs: defaultEraWaitMs(o.profile) } : {}),
      ...(o.key === undefined ? {} : { key: o.key }),
      ...(o.stateDir === undefined ? {} : { stateDir: o.stateDir }),
      ...(o.time === undefined ? {} : { time: o.time }),
      ...(o.logger === undefined ? {} : { logger: o.logger }),
    });
  },
  timings: (profile) => ({
    fenceAfterMs: PROFILES[profile].fenceAfterMs,
    reclaimAfterMs: PROFILES[profile].reclaimAfterMs,
    eraWaitMs: defaultEraWaitMs(profile),
  }),
  abandon(lease: ConformanceLease) {
    leaseControl(lease as ZooKeeperMachineIdLease).abandon();
  },
  admin: (address, namespace) => new ZooKeeperAdmin({ connect: address, root: namespace }),
};
