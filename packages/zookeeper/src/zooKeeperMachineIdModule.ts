import { machineIdProviderModule } from '@vesta/lease';
import type { ContainerModule } from 'inversify';
import type { ZooKeeperMachineIdOptions } from './ZooKeeperMachineIdOptions.js';
import { ZooKeeperMachineIdProvider } from './ZooKeeperMachineIdProvider.js';

/**
 * The ZooKeeper coordinator as an inversify module: it binds `TOKENS.MachineIdProvider` to a
 * {@link ZooKeeperMachineIdProvider} of `options`, so an id service composed with it leases its
 * machine id from ZooKeeper. Give that service neither `machineId` nor `machineIdProvider`:
 * two machine-id sources are INVALID_OPTIONS.
 * The options are checked when the module is built; build one module per service (see
 * `machineIdProviderModule`).
 *
 * @example
 * const ids = await createEmbeddedIdService({
 *   modules: [zooKeeperMachineIdModule({ connect: 'zk1:2181,zk2:2181', key: 'orders-7' })],
 * });
 * // or, composing by hand:
 * const service = await createIdService(
 *   {},
 *   embeddedModeModule(),
 *   zooKeeperMachineIdModule({ connect: 'zk1:2181,zk2:2181', key: 'orders-7' }),
 * );
 */
export function zooKeeperMachineIdModule(options: ZooKeeperMachineIdOptions): ContainerModule {
  return machineIdProviderModule(new ZooKeeperMachineIdProvider(options));
}
