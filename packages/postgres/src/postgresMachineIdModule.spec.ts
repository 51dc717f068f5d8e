import { TOKENS } from '@vesta/core';
import { codeOf } from '@vesta/testkit';
import { Container } from 'inversify';
import { describe, expect, it } from 'vitest';
import type { PostgresMachineIdOptions } from './PostgresMachineIdOptions.js';
import { postgresMachineIdModule } from './postgresMachineIdModule.js';
import { PostgresMachineIdProvider } from './PostgresMachineIdProvider.js';

describe('postgresMachineIdModule', () => {
  it.each<[string, PostgresMachineIdOptions]>([
    ['a URL of another scheme', { url: 'mysql://vesta@127.0.0.1:3306/app' }],
    ['an unknown option', { url: 'postgres://vesta@127.0.0.1:5432/app', shema: 'ids' } as never],
  ])(
    'refuses %s when the module is built (INVALID_OPTIONS), before any container',
    (_name, options) => {
      expect(codeOf(() => postgresMachineIdModule(options))).toBe('INVALID_OPTIONS');
    },
  );

  it('binds TOKENS.MachineIdProvider to its one provider, the same in every container that loads it', () => {
    const module = postgresMachineIdModule({ url: 'postgres://vesta@127.0.0.1:5432/app' });
    const [first, second] = [new Container(), new Container()].map((container) => {
      container.loadSync(module);
      return container.get(TOKENS.MachineIdProvider);
    });
    expect(first).toBeInstanceOf(PostgresMachineIdProvider);
    expect(second).toBe(first);
  });
});
