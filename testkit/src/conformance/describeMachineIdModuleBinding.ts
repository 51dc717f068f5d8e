import { TOKENS, type MachineIdProvider } from '@vesta/core';
import { Container, type ContainerModule } from 'inversify';
import { describe, expect, it } from 'vitest';
import { codeOf } from '../codeOf.js';

/** What {@link describeMachineIdModuleBinding} needs of a coordinator package, with no store. */
export interface MachineIdModuleBindingHarness<Options> {
  /** The module function's name, the specs' title (`redisMachineIdModule`...). */
  readonly name: string;
  /** The package's module function. */
  module(options: Options): ContainerModule;
  /** The package's provider class, which the module binds. */
  readonly provider: abstract new (options: Options) => MachineIdProvider;
  /** Options the module takes. */
  readonly options: Options;
  /** Options the module refuses, each with a name for the test title. */
  readonly refused: readonly (readonly [name: string, options: Options])[];
}

/**
 * Declares the unit specs of a coordinator package's machine-id module (`redisMachineIdModule`...):
 * bad options are refused when the module is built, and every container that loads the module
 * is handed its one provider. Nothing connects; call it at the top level of a `*.spec.ts` file.
 * The specs against the real store are {@link describeMachineIdModule}'s.
 */
export function describeMachineIdModuleBinding<Options>(
  harness: MachineIdModuleBindingHarness<Options>,
): void {
  describe(harness.name, () => {
    it.each(harness.refused)(
      'refuses %s when the module is built (INVALID_OPTIONS), before any container',
      (_name, options) => {
        expect(codeOf(() => harness.module(options))).toBe('INVALID_OPTIONS');
      },
    );

    it('binds TOKENS.MachineIdProvider to its one provider, the same in every container that loads it', () => {
      const module = harness.module(harness.options);
      const [first, second] = [new Container(), new Container()].map((container) => {
        container.loadSync(module);
        return container.get(TOKENS.MachineIdProvider);
      });
      expect(first).toBeInstanceOf(harness.provider);
      expect(second).toBe(first);
    });
  });
}
