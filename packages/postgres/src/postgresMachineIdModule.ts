import { machineIdProviderModule } from '@vesta/lease';
import type { ContainerModule } from 'inversify';
import type { PostgresMachineIdOptions } from './PostgresMachineIdOptions.js';
import { PostgresMachineIdProvider } from './PostgresMachineIdProvider.js';

/**
 * The PostgreSQL coordinator as an inversify module binding `TOKENS.MachineIdProvider` (see
 * `machineIdProviderModule`): one module per service; its options are checked here.
 *
 * @example
 * const ids = await createEmbeddedIdService({
 *   modules: [postgresMachineIdModule({ url: 'postgres://vesta@db:5432/app', key: 'orders-7' })],
 * });
 */
export function postgresMachineIdModule(options: PostgresMachineIdOptions): ContainerModule {
  return machineIdProviderModule(new PostgresMachineIdProvider(options));
}
