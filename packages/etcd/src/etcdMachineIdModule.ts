import { machineIdProviderModule } from '@vesta/lease';
import type { ContainerModule } from 'inversify';
import type { EtcdMachineIdOptions } from './EtcdMachineIdOptions.js';
import { EtcdMachineIdProvider } from './EtcdMachineIdProvider.js';

/**
 * The etcd coordinator as an inversify module: it binds `TOKENS.MachineIdProvider` to a
 * {@link EtcdMachineIdProvider} of `options`, so an id service composed with it leases its
 * machine id from etcd. Give that service neither `machineId` nor `machineIdProvider`:
 * two machine-id sources are INVALID_OPTIONS.
 * The options are checked when the module is built; build one module per service (see
 * `machineIdProviderModule`).
 *
 * @example
 * const ids = await createEmbeddedIdService({
 *   modules: [etcdMachineIdModule({ endpoints: 'etcd1:2379,etcd2:2379', key: 'orders-7' })],
 * });
 * // or, composing by hand:
 * const service = await createIdService(
 *   {},
 *   embeddedModeModule(),
 *   etcdMachineIdModule({ endpoints: 'etcd1:2379,etcd2:2379', key: 'orders-7' }),
 * );
 */
export function etcdMachineIdModule(options: EtcdMachineIdOptions): ContainerModule {
  return machineIdProviderModule(new EtcdMachineIdProvider(options));
}
