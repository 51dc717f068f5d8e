import { silentLogger } from '@vesta/core';
import { codeOfAsync, eventually, machineIdRequest, TestResources } from '@vesta/testkit';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { EtcdAdmin } from './EtcdAdmin.js';
import type { EtcdMachineIdOptions } from './EtcdMachineIdOptions.js';
import { EtcdMachineIdProvider } from './EtcdMachineIdProvider.js';

const endpoints = inject('etcdEndpoints');
const request = machineIdRequest();
let roots = 0;
const root = (): string => `/etcd-spec-${process.pid}-${++roots}`;
const provider = (extra: Partial<EtcdMachineIdOptions> & { root: string }) =>
  new EtcdMachineIdProvider({
    endpoints,
    logger: silentLogger,
    refreshIntervalMs: 100,
    fenceAfterMs: 400,
    eraWaitMs: 0,
    ...extra,
  });
const resources = new TestResources();
afterAll(() => resources.dispose());

describe('EtcdMachineIdProvider', () => {
  it('starts on the cached lease while etcd is unreachable, and confirms it once it is back', async () => {
    const ns = root();
    const stateDir = resources.tempDir('vesta-etcd-state-');
    // The cache is good for reclaim − fence − skew after its confirmation.
    const timings = { stateDir, reclaimAfterMs: 10_000, maxClockSkewMs: 100 };
    const first = await provider({ root: ns, ...timings }).acquire(request);
    expect(await eventually(() => first.stats.renewals > 0)).toBe(true);
    await first.release();

    const proxy = await resources.proxy(endpoints);
    proxy.refuse();
    const cached = provider({
      root: ns,
      ...timings,
      endpoints: proxy.address,
      connectTimeoutMs: 300,
      operationTimeoutMs: 300,
    });
    const lease = await cached.acquire(request);
    expect(lease.machineId).toBe(first.machineId);
    expect(cached.stats.fromCache).toBe(1);
    expect(lease.valid).toBe(true);
    expect(lease.stats.renewals).toBe(0);

    proxy.forward();
    expect(await eventually(() => lease.stats.renewals > 0, 20_000)).toBe(true);
    expect(lease.valid).toBe(true);
    const [row] = await new EtcdAdmin({ endpoints, root: ns }).list();
    expect(row).toMatchObject({ machineId: first.machineId, owner: first.key, alive: true });
    await lease.release();
  });

  it('refuses to start with COORDINATOR_UNAVAILABLE when etcd is unreachable and nothing is cached', async () => {
    const proxy = await resources.proxy(endpoints);
    proxy.refuse();
    const p = provider({
      root: root(),
      endpoints: proxy.address,
      connectTimeoutMs: 300,
      operationTimeoutMs: 300,
    });
    expect(await codeOfAsync(() => p.acquire(request))).toBe('COORDINATOR_UNAVAILABLE');
  });

  it('refuses inconsistent timings at construction (INVALID_OPTIONS)', async () => {
    expect(await codeOfAsync(async () => provider({ root: root(), fenceAfterMs: 100 }))).toBe(
      'INVALID_OPTIONS',
    );
    expect(await codeOfAsync(async () => provider({ root: 'no-slash' }))).toBe('INVALID_OPTIONS');
  });
});
