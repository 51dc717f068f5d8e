import { randomUUID } from 'node:crypto';
import { startPostgresServer } from '@vesta/testkit';
import {
  defineMachineIdProviderHarness,
  type ConformanceLease,
  type MachineIdProviderHarness,
} from '@vesta/testkit/conformance';
import { leaseControls } from '../internal/leaseControls.js';
import { PostgresAdmin } from '../PostgresAdmin.js';
import { PostgresMachineIdProvider } from '../PostgresMachineIdProvider.js';
import { resolvePostgresMachineIdOptions } from '../PostgresMachineIdOptions.js';

/** Short timings; generous connection deadlines (the suite must hold on a loaded machine). */
const FAST = {
  refreshIntervalMs: 100,
  fenceAfterMs: 400,
  reclaimAfterMs: 1200,
  ownerWaitMs: 1500,
  connectTimeoutMs: 5000,
  operationTimeoutMs: 2000,
} as const;

const PROFILES = {
  fast: FAST,
  // Nobody may reclaim while PostgreSQL is down.
  outage: { ...FAST, reclaimAfterMs: 40_000, ownerWaitMs: 2000 },
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

const url = (address: string): string => `postgres://vesta@${address}/vesta`;

/** The conformance harness of {@link PostgresMachineIdProvider}: a namespace is a schema. */
export const postgresHarness: MachineIdProviderHarness = defineMachineIdProviderHarness({
  name: 'PostgreSQL',
  startCoordinator: () => startPostgresServer(),
  namespace: () => `ns_${randomUUID().slice(0, 8)}`,
  profiles: PROFILES,
  defaultEraWaitMs: (timings) =>
    resolvePostgresMachineIdOptions({ url: 'postgres://x@127.0.0.1:1/x', ...timings }).eraWaitMs,
  createProvider: (address, schema, settings) =>
    new PostgresMachineIdProvider({ url: url(address), schema, ...settings }),
  abandon(lease: ConformanceLease) {
    const control = leaseControls.get(lease);
    if (control === undefined) throw new Error(`lease of ${lease.machineId} has no control`);
    control.abandon();
  },
  admin: (address, namespace) => new PostgresAdmin({ url: url(address), schema: namespace }),
});
