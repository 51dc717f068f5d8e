import { defineCoordinator, machineIdProviderModule } from '@vesta/lease';
import type { ContainerModule } from 'inversify';
import { RedisAdmin } from './RedisAdmin.js';
import type { RedisMachineIdOptions } from './RedisMachineIdOptions.js';
import { RedisMachineIdProvider } from './RedisMachineIdProvider.js';

/**
 * An inversify module binding `TOKENS.MachineIdProvider` to a Redis provider: one per service.
 *
 * @example
 * const ids = await createEmbeddedIdService({
 *   modules: [redisMachineIdModule({ url: 'redis://redis:6379', key: 'orders-7' })],
 * });
 */
export const redisMachineIdModule = (options: RedisMachineIdOptions): ContainerModule =>
  machineIdProviderModule(new RedisMachineIdProvider(options));

/** Redis as `--coordinator` takes it: one server, or the primary Sentinel names. */
export const redisCoordinator = defineCoordinator({
  schemes: ['redis', 'rediss', 'redis+sentinel'],
  form: 'redis://[[user]:password@]host:port[/db][?option=value...] or redis+sentinel://host:port[,host:port]/master-name[?option=value...]',
  example: 'redis://:secret@redis.internal:6379/0?prefix=prod&minReplicas=1',
  module: redisMachineIdModule,
  admin: (options) => new RedisAdmin(options),
});
