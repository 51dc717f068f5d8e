import { TOKENS } from '@vesta/core';
import { codeOf } from '@vesta/testkit';
import { Container } from 'inversify';
import { describe, expect, it } from 'vitest';
import type { RedisMachineIdOptions } from './RedisMachineIdOptions.js';
import { redisMachineIdModule } from './redisMachineIdModule.js';
import { RedisMachineIdProvider } from './RedisMachineIdProvider.js';

describe('redisMachineIdModule', () => {
  it.each<[string, RedisMachineIdOptions]>([
    ['a URL of another scheme', { url: 'http://127.0.0.1:6379' }],
    ['an unknown option', { url: 'redis://127.0.0.1:6379', prefx: 'vesta' } as never],
  ])(
    'refuses %s when the module is built (INVALID_OPTIONS), before any container',
    (_name, options) => {
      expect(codeOf(() => redisMachineIdModule(options))).toBe('INVALID_OPTIONS');
    },
  );

  it('binds TOKENS.MachineIdProvider to its one provider, the same in every container that loads it', () => {
    const module = redisMachineIdModule({ url: 'redis://127.0.0.1:6379' });
    const [first, second] = [new Container(), new Container()].map((container) => {
      container.loadSync(module);
      return container.get(TOKENS.MachineIdProvider);
    });
    expect(first).toBeInstanceOf(RedisMachineIdProvider);
    expect(second).toBe(first);
  });
});
