import { defineCoordinator, machineIdProviderModule } from '@vesta/lease';
import type { ContainerModule } from 'inversify';
import { EtcdAdmin } from './EtcdAdmin.js';
import type { EtcdMachineIdOptions } from './EtcdMachineIdOptions.js';
import { EtcdMachineIdProvider } from './EtcdMachineIdProvider.js';

/**
 * An inversify module binding `TOKENS.MachineIdProvider` to an etcd provider: one per service.
 * @example
 * const ids = await createEmbeddedIdService({
 *   modules: [etcdMachineIdModule({ endpoints: 'etcd1:2379,etcd2:2379', key: 'orders-7' })],
 * });
 */
export const etcdMachineIdModule = (options: EtcdMachineIdOptions): ContainerModule =>
  machineIdProviderModule(new EtcdMachineIdProvider(options));

/** etcd as `--coordinator` takes it: endpoints and a key prefix. */
export const etcdCoordinator = defineCoordinator({
  schemes: ['etcd'],
  form: 'etcd://host:port[,host:port][/root][?option=value...]',
  example: 'etcd://etcd1.internal:2379,etcd2.internal:2379/vesta/prod?fenceAfterMs=6000',
  module: etcdMachineIdModule,
  admin: (options) => new EtcdAdmin(options),
});
