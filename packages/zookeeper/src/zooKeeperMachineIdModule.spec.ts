import { TOKENS } from '@vesta/core';
import { codeOf } from '@vesta/testkit';
import { Container } from 'inversify';
import { describe, expect, it } from 'vitest';
import type { ZooKeeperMachineIdOptions } from './ZooKeeperMachineIdOptions.js';
import { zooKeeperMachineIdModule } from './zooKeeperMachineIdModule.js';
import { ZooKeeperMachineIdProvider } from './ZooKeeperMachineIdProvider.js';

describe('zooKeeperMachineIdModule', () => {
  it.each<[string, ZooKeeperMachineIdOptions]>([
    ['a root that is no absolute path', { connect: '127.0.0.1:2181', root: 'vesta' }],
    ['an unknown option', { connect: '127.0.0.1:2181', rooot: '/vesta' } as never],
  ])(
    'refuses %s when the module is built (INVALID_OPTIONS), before any container',
    (_name, options) => {
      expect(codeOf(() => zooKeeperMachineIdModule(options))).toBe('INVALID_OPTIONS');
    },
  );

  it('binds TOKENS.MachineIdProvider to its one provider, the same in every container that loads it', () => {
    const module = zooKeeperMachineIdModule({ connect: '127.0.0.1:2181' });
    const [first, second] = [new Container(), new Container()].map((container) => {
      container.loadSync(module);
      return container.get(TOKENS.MachineIdProvider);
    });
    expect(first).toBeInstanceOf(ZooKeeperMachineIdProvider);
    expect(second).toBe(first);
  });
});
