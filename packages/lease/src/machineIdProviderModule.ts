import { TOKENS, type MachineIdProvider } from '@vesta/core';
import { ContainerModule } from 'inversify';

/**
 * A coordinator's machine-id provider as an inversify module: it binds
 * `TOKENS.MachineIdProvider` to `provider`, the one instance, in every container the module is
 * loaded into. Each coordinator package's module (`redisMachineIdModule`,
 * `zooKeeperMachineIdModule`...) is this over a provider built, and so checked, from its options.
 *
 * @example
 * export function myStoreMachineIdModule(options: MyStoreOptions): ContainerModule {
 *   return machineIdProviderModule(new MyStoreMachineIdProvider(options));
 * }
 */
export function machineIdProviderModule(provider: MachineIdProvider): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<MachineIdProvider>(TOKENS.MachineIdProvider).toConstantValue(provider);
  });
}
