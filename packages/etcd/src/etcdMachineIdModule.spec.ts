import { TOKENS } from '@vesta/core';
import { codeOf } from '@vesta/testkit';
import { Container } from 'inversify';
import { describe, expect, it } from 'vitest';
import type { EtcdMachineIdOptions } from './EtcdMachineIdOptions.js';
import { etcdMachineIdModule } from './etcdMachineIdModule.js';
import { EtcdMachineIdProvider } from './EtcdMachineIdProvider.js';

describe('etcdMachineIdModule', () => {
  it.each<[string, EtcdMachineIdOptions]>([
    ['a root that is no absolute path', { endpoints: '127.0.0.1:2379', root: 'vesta' }],
    ['an unknown option', { endpoints: '127.0.0.1:2379', rooot: '/vesta' } as never],
  ])(
    'refuses %s when the module is built (INVALID_OPTIONS), before any container',
    (_name, options) => {
      expect(codeOf(() => etcdMachineIdModule(options))).toBe('INVALID_OPTIONS');
    },
  );

  it('binds TOKENS.MachineIdProvider to its one provider, the same in every container that loads it', () => {
    const module = etcdMachineIdModule({ endpoints: '127.0.0.1:2379' });
    const [first, second] = [new Container(), new Container()].map((container) => {
      container.loadSync(module);
      return container.get(TOKENS.MachineIdProvider);
    });
    expect(first).toBeInstanceOf(EtcdMachineIdProvider);
    expect(second).toBe(first);
  });
});
