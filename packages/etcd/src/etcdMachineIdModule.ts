import { machineIdProviderModule } from '@vesta/lease';
import type { ContainerModule } from 'inversify';
import type { EtcdMachineIdOptions } from './EtcdMachineIdOptions.js';
import { EtcdMachineIdProvider } from './EtcdMachineIdProvider.js';

/**
 * The etcd coordinator as an inversify module: it binds `TOKENS.MachineIdProvider` to a
 * {@link EtcdMachineIdProvider} of `options`, so an id service composed with it leases its
 * machine id from etcd. Give that service neither `machineId` nor `machineIdProvider`:
 * two machine-id sources are INVALID_OPTIONS.
 *
 * The options are checked here, once, when the module is built (INVALID_OPTIONS before any
 * container exists); nothing connects until a service acquires its id. The module holds that
 * one provider: every container it is loaded into (two services, or a generator name with a
 * shape of its own) is handed the same provider and acquires a lease of its own through it,
 * under the same `key`, which a second live holder waits `ownerWaitMs` for before it takes
 * another id: build one module per service.
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
