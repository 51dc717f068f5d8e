import { randomUUID } from 'node:crypto';
import { startEtcdServer } from '@vesta/testkit';
import {
  defineMachineIdProviderHarness,
  type ConformanceLease,
  type MachineIdProviderHarness,
} from '@vesta/testkit/conformance';
import { leaseControls } from '../internal/leaseControls.js';
import { EtcdAdmin } from '../EtcdAdmin.js';
import { EtcdMachineIdProvider } from '../EtcdMachineIdProvider.js';
import { resolveEtcdMachineIdOptions } from '../EtcdMachineIdOptions.js';

/**
 * Short timings; generous connection deadlines (the suite must hold on a loaded machine). etcd
 * lease TTLs are whole seconds, at least its minimum (about 2 s): the reclaim delay is 2 s and a
 * crashed owner's live key lasts up to that long, which the owner wait covers.
 */
const FAST = {
  refreshIntervalMs: 150,
  fenceAfterMs: 600,
  reclaimAfterMs: 2000,
  ownerWaitMs: 3500,
  connectTimeoutMs: 5000,
  operationTimeoutMs: 2000,
} as const;

const PROFILES = {
  fast: FAST,
  // Nobody may reclaim while etcd is down.
  outage: { ...FAST, reclaimAfterMs: 40_000 },
  // The holder issues for up to fenceAfterMs after its last confirmed renewal.
  dataLoss: {
    ...FAST,
    refreshIntervalMs: 500,
    fenceAfterMs: 6000,
    reclaimAfterMs: 12_000,
    ownerWaitMs: 7000,
    maxClockSkewMs: 500,
  },
} as const;

/** The conformance harness of {@link EtcdMachineIdProvider}: a namespace is a key prefix. */
export const etcdHarness: MachineIdProviderHarness = defineMachineIdProviderHarness({
  name: 'etcd',
  startCoordinator: () => startEtcdServer(),
  namespace: () => `/test-${randomUUID().slice(0, 8)}`,
  profiles: PROFILES,
  defaultEraWaitMs: (timings) =>
    resolveEtcdMachineIdOptions({ endpoints: '127.0.0.1:1', ...timings }).eraWaitMs,
  createProvider: (endpoints, root, settings) =>
    new EtcdMachineIdProvider({ endpoints, root, ...settings }),
  abandon(lease: ConformanceLease) {
    const control = leaseControls.get(lease);
    if (control === undefined) throw new Error(`lease of ${lease.machineId} has no control`);
    control.abandon();
  },
  admin: (address, namespace) => new EtcdAdmin({ endpoints: address, root: namespace }),
});
