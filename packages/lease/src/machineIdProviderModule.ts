import { TOKENS, type MachineIdProvider } from '@vesta/core';
import { ContainerModule } from 'inversify';

/**
 * A coordinator's provider as an inversify module binding `TOKENS.MachineIdProvider` to it.
 * Every container it is loaded into shares the one provider, and so its `key`: a second live
 * holder waits `ownerWaitMs` before it takes another id. Build one module per service.
 */
export function machineIdProviderModule(provider: MachineIdProvider): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<MachineIdProvider>(TOKENS.MachineIdProvider).toConstantValue(provider);
  });
}
