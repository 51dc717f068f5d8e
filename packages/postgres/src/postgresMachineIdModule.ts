import { machineIdProviderModule } from '@vesta/lease';
import type { ContainerModule } from 'inversify';
import type { PostgresMachineIdOptions } from './PostgresMachineIdOptions.js';
import { PostgresMachineIdProvider } from './PostgresMachineIdProvider.js';

/**
 * The PostgreSQL coordinator as an inversify module: it binds `TOKENS.MachineIdProvider` to a
 * {@link PostgresMachineIdProvider} of `options`, so an id service composed with it leases its
 * machine id from PostgreSQL. Give that service neither `machineId` nor `machineIdProvider`:
 * two machine-id sources are INVALID_OPTIONS.
 * The options are checked when the module is built; build one module per service (see
 * `machineIdProviderModule`).
 *
 * @example
 * const ids = await createEmbeddedIdService({
 *   modules: [postgresMachineIdModule({ url: 'postgres://vesta@db:5432/app', key: 'orders-7' })],
 * });
 * // or, composing by hand:
 * const service = await createIdService(
 *   {},
 *   embeddedModeModule(),
 *   postgresMachineIdModule({ url: 'postgres://vesta@db:5432/app', key: 'orders-7' }),
 * );
 */
export function postgresMachineIdModule(options: PostgresMachineIdOptions): ContainerModule {
  return machineIdProviderModule(new PostgresMachineIdProvider(options));
}
