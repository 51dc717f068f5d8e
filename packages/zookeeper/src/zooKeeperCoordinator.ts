import { defineCoordinator, machineIdProviderModule } from '@vesta/lease';
import type { ContainerModule } from 'inversify';
import { ZooKeeperAdmin } from './ZooKeeperAdmin.js';
import type { ZooKeeperMachineIdOptions } from './ZooKeeperMachineIdOptions.js';
import { ZooKeeperMachineIdProvider } from './ZooKeeperMachineIdProvider.js';

/**
 * An inversify module binding `TOKENS.MachineIdProvider` to a ZooKeeper provider: one per service.
 * @example
 * const ids = await createEmbeddedIdService({
 *   modules: [zooKeeperMachineIdModule({ connect: 'zk1:2181,zk2:2181', key: 'orders-7' })],
 * });
 */
export const zooKeeperMachineIdModule = (options: ZooKeeperMachineIdOptions): ContainerModule =>
  machineIdProviderModule(new ZooKeeperMachineIdProvider(options));

/** ZooKeeper as `--coordinator` takes it: a connect string and a root. */
export const zooKeeperCoordinator = defineCoordinator({
  schemes: ['zookeeper'],
  form: 'zookeeper://host:port[,host:port][/root][?option=value...]',
  example: 'zookeeper://zk1.internal:2181,zk2.internal:2181/vesta/prod',
  module: zooKeeperMachineIdModule,
  admin: (options) => new ZooKeeperAdmin(options),
});
