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
    ['an unknown option', { endpoints: '127.0.0.1:2379', url: 'x' }],
  ])('refuses %s with INVALID_OPTIONS', (_, input) => {
    expect(codeOf(() => resolveEtcdMachineIdOptions(input as never))).toBe('INVALID_OPTIONS');
  });
});

describe('the README', () => {
  it('says in its options table what the declaration says: every option, the required ones, each literal default', () => {
    expect(
      optionsTableMismatches(join(import.meta.dirname, '../README.md'), etcdMachineIdOptions),
    ).toEqual([]);
  });
});
