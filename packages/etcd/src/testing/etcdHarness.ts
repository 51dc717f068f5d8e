import { randomUUID } from 'node:crypto';
import { startEtcdServer } from '@vesta/testkit';
import { Etcd3 } from 'etcd3';
import {
  conformanceProfiles,
  defineMachineIdProviderHarness,
  type MachineIdProviderHarness,
} from '@vesta/testkit/conformance';
import { EtcdAdmin } from '../EtcdAdmin.js';
import { EtcdMachineIdProvider } from '../EtcdMachineIdProvider.js';
import { resolveEtcdMachineIdOptions } from '../EtcdMachineIdOptions.js';

/**
 * Generous connection deadlines (the suite must hold on a loaded machine). etcd lease TTLs are
 * whole seconds, at least its minimum (about 2 s): the reclaim delay is 2 s and a crashed owner's
 * live key lasts up to that long, which the owner wait covers.
 */
const FAST = { refreshIntervalMs: 150, fenceAfterMs: 600, reclaimAfterMs: 2000, ownerWaitMs: 3500 };
const PROFILES = conformanceProfiles(
  { connectTimeoutMs: 5000, operationTimeoutMs: 2000 },
  // Nobody may reclaim while etcd is down.
  { fast: FAST, outage: { ...FAST, reclaimAfterMs: 40_000 } },
);

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
  admin: (address, namespace) => new EtcdAdmin({ endpoints: address, root: namespace }),
  dump: async (address, root) => {
    const client = new Etcd3({ hosts: `http://${address}` });
    try {
      const { kvs } = await client.getAll().prefix(`${root}/`).exec();
      return kvs.map(
        (kv) => `${kv.key.toString()} ${kv.mod_revision} ${kv.lease} ${kv.value.toString()}`,
      );
    } finally {
      client.close();
    }
  },
});
