import { TOKENS, type MachineIdProvider } from '@vesta/core';
import { ContainerModule } from 'inversify';

/** Binds `TOKENS.MachineIdProvider` (containers loading it share the key: one per service). */
export function machineIdProviderModule(provider: MachineIdProvider): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<MachineIdProvider>(TOKENS.MachineIdProvider).toConstantValue(provider);
  });
}
