import { join } from 'node:path';
import { codeOf, optionsTableMismatches } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { etcdMachineIdOptions, resolveEtcdMachineIdOptions } from './EtcdMachineIdOptions.js';

describe('resolveEtcdMachineIdOptions', () => {
  it('reads the endpoints as http:// URLs and fills the defaults, frozen', () => {
    const o = resolveEtcdMachineIdOptions({
      endpoints: '127.0.0.1:2379, https://etcd.internal:2379',
      fenceAfterMs: 4_500,
    });
    expect(o).toMatchObject({
      endpoints: ['http://127.0.0.1:2379', 'https://etcd.internal:2379'],
      root: '/vesta',
      ownerWaitMs: 5_000 + 1_000,
      eraWaitMs: 4_500 + 2 * 1_000 + 1_000,
      fallbackToCache: true,
    });
    expect(Object.isFrozen(o)).toBe(true);
    expect(Object.isFrozen(o.endpoints)).toBe(true);
  });

  it.each([
    ['endpoints without a port', { endpoints: 'etcd.internal' }],
    ['a relative root', { endpoints: '127.0.0.1:2379', root: 'vesta' }],
    [
      'a fence under twice the refresh interval',
      { endpoints: '127.0.0.1:2379', fenceAfterMs: 100, refreshIntervalMs: 100 },
    ],
    ['an unknown option', { endpoints: '127.0.0.1:2379', bogus: 1 }],
    ['neither endpoints nor url', {}],
    ['both endpoints and url', { endpoints: '127.0.0.1:2379', url: 'etcd://127.0.0.1:2379' }],
    ['a url of another scheme', { url: 'http://127.0.0.1:2379' }],
    ['an unknown url parameter', { url: 'etcd://127.0.0.1:2379?bogus=1' }],
  ])('refuses %s with INVALID_OPTIONS', (_, input) => {
    expect(codeOf(() => resolveEtcdMachineIdOptions(input as never))).toBe('INVALID_OPTIONS');
  });
});

describe('an etcd:// url', () => {
  it('gives the endpoints, the root and any other option of its query', () => {
    const o = resolveEtcdMachineIdOptions({
      url: 'etcd://e1:2379,e2:2379/vesta/prod?fenceAfterMs=6000&refreshIntervalMs=1000',
    });
    expect(o).toMatchObject({
      endpoints: ['http://e1:2379', 'http://e2:2379'],
      root: '/vesta/prod',
      fenceAfterMs: 6_000,
      refreshIntervalMs: 1_000,
    });
    expect(o).not.toHaveProperty('url');
  });
});

describe('the README', () => {
  it('says in its options table what the declaration says: every option, the required ones, each literal default', () => {
    expect(
      optionsTableMismatches(join(import.meta.dirname, '../README.md'), etcdMachineIdOptions),
    ).toEqual([]);
  });
});
