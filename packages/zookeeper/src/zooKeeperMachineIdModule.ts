import { machineIdProviderModule } from '@vesta/lease';
import type { ContainerModule } from 'inversify';
import type { ZooKeeperMachineIdOptions } from './ZooKeeperMachineIdOptions.js';
import { ZooKeeperMachineIdProvider } from './ZooKeeperMachineIdProvider.js';

/**
 * The ZooKeeper coordinator as an inversify module: `TOKENS.MachineIdProvider` bound to a
 * {@link ZooKeeperMachineIdProvider} of `options` (checked now; build one module per service).
 *
 * @example
 * const ids = await createEmbeddedIdService({
 *   modules: [zooKeeperMachineIdModule({ connect: 'zk1:2181,zk2:2181', key: 'orders-7' })],
 * });
 */
export function zooKeeperMachineIdModule(options: ZooKeeperMachineIdOptions): ContainerModule {
  return machineIdProviderModule(new ZooKeeperMachineIdProvider(options));
}
