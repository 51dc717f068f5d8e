import { silentLogger } from '@vesta/core';
import { codeOfAsync } from '@vesta/testkit';
import { describeCachedLeaseStart } from '@vesta/testkit/conformance';
import { describe, expect, inject, it } from 'vitest';
import { EtcdAdmin } from './EtcdAdmin.js';
import type { EtcdMachineIdOptions } from './EtcdMachineIdOptions.js';
import { EtcdMachineIdProvider } from './EtcdMachineIdProvider.js';

const endpoints = inject('etcdEndpoints');
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

describeCachedLeaseStart({
  name: 'etcd',
  address: () => endpoints,
  namespace: root,
  createProvider: (address, namespace, settings) =>
    provider({ endpoints: address, root: namespace, ...settings }),
  list: (namespace) => new EtcdAdmin({ endpoints, root: namespace }).list(),
  history: (namespace) => new EtcdAdmin({ endpoints, root: namespace }).history(),
});

describe('EtcdMachineIdProvider', () => {
  it('refuses inconsistent timings at construction (INVALID_OPTIONS)', async () => {
    expect(await codeOfAsync(async () => provider({ root: root(), fenceAfterMs: 100 }))).toBe(
      'INVALID_OPTIONS',
    );
    expect(await codeOfAsync(async () => provider({ root: 'no-slash' }))).toBe('INVALID_OPTIONS');
  });
});
