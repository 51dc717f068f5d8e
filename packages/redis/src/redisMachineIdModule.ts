import { machineIdProviderModule } from '@vesta/lease';
import type { ContainerModule } from 'inversify';
import type { RedisMachineIdOptions } from './RedisMachineIdOptions.js';
import { RedisMachineIdProvider } from './RedisMachineIdProvider.js';

/**
 * The Redis coordinator as an inversify module: it binds `TOKENS.MachineIdProvider` to a
 * {@link RedisMachineIdProvider} of `options`, so an id service composed with it leases its
 * machine id from Redis. Give that service neither `machineId` nor `machineIdProvider`:
 * two machine-id sources are INVALID_OPTIONS.
 * The options are checked when the module is built; build one module per service (see
 * `machineIdProviderModule`).
 *
 * @example
 * const ids = await createEmbeddedIdService({
 *   modules: [redisMachineIdModule({ url: 'redis://redis:6379', key: 'orders-7' })],
 * });
 * // or, composing by hand:
 * const service = await createIdService(
 *   {},
 *   embeddedModeModule(),
 *   redisMachineIdModule({ url: 'redis://redis:6379', key: 'orders-7' }),
 * );
 */
export function redisMachineIdModule(options: RedisMachineIdOptions): ContainerModule {
  return machineIdProviderModule(new RedisMachineIdProvider(options));
}
