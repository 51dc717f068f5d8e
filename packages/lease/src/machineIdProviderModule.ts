import { TOKENS, type MachineIdProvider } from '@vesta/core';
import { ContainerModule } from 'inversify';

/**
 * A coordinator's machine-id provider as an inversify module: it binds
 * `TOKENS.MachineIdProvider` to `provider`, the one instance, in every container the module is
 * loaded into. Each coordinator package's module (`redisMachineIdModule`,
 * `zooKeeperMachineIdModule`...) is this over a provider built, and so checked, from its options.
 *
 * The options are thus checked once, when the module is built (INVALID_OPTIONS before any
 * container exists); nothing connects until a service acquires its id. The module holds that
 * one provider: every container it is loaded into (two services, or a generator name with a
 * shape of its own) is handed the same provider and acquires a lease of its own through it,
 * under the same `key`, which a second live holder waits `ownerWaitMs` for before it takes
 * another id: build one module per service.
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
