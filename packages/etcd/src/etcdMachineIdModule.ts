import { machineIdProviderModule } from '@vesta/lease';
import type { ContainerModule } from 'inversify';
import type { EtcdMachineIdOptions } from './EtcdMachineIdOptions.js';
import { EtcdMachineIdProvider } from './EtcdMachineIdProvider.js';

/**
 * The etcd coordinator as an inversify module binding `TOKENS.MachineIdProvider`: one module per
 * service; its options are checked here.
 *
 * @example
 * const ids = await createEmbeddedIdService({
 *   modules: [etcdMachineIdModule({ endpoints: 'etcd1:2379,etcd2:2379', key: 'orders-7' })],
 * });
 */
export function etcdMachineIdModule(options: EtcdMachineIdOptions): ContainerModule {
  return machineIdProviderModule(new EtcdMachineIdProvider(options));
}
