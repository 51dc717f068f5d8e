import { machineIdProviderModule } from '@vesta/lease';
import type { ContainerModule } from 'inversify';
import type { RedisMachineIdOptions } from './RedisMachineIdOptions.js';
import { RedisMachineIdProvider } from './RedisMachineIdProvider.js';

/**
 * The Redis coordinator as an inversify module binding `TOKENS.MachineIdProvider` (see
 * `machineIdProviderModule`): one module per service; its options are checked here.
 *
 * @example
 * const ids = await createEmbeddedIdService({
 *   modules: [redisMachineIdModule({ url: 'redis://redis:6379', key: 'orders-7' })],
 * });
 */
export function redisMachineIdModule(options: RedisMachineIdOptions): ContainerModule {
  return machineIdProviderModule(new RedisMachineIdProvider(options));
}
