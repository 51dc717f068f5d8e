import { defineCoordinator, LeaseAdmin, machineIdProviderModule } from '@vesta/lease';
import type { LeaseAllocation } from '@vesta/lease';
import type { ContainerModule } from 'inversify';
import { redisOptions, type RedisAdminOptions } from './RedisMachineIdOptions.js';
import type { RedisMachineIdOptions } from './RedisMachineIdOptions.js';
import { RedisMachineIdProvider } from './RedisMachineIdProvider.js';
import { RedisKeyspace, type RedisRow } from './RedisKeyspace.js';

/** Operators' view of a fleet's allocations in Redis ({@link LeaseAdmin}); of the URL's query, only `prefix` counts. */
export class RedisAdmin extends LeaseAdmin<LeaseAllocation, RedisKeyspace, RedisRow> {
  constructor(options: RedisAdminOptions) {
    const o = redisOptions.resolveAdmin(options);
    super({
      store: 'Redis',
      where: `under ${o.prefix}`,
      namespace: `Redis under prefix ${o.prefix}`,
      open: () => new RedisKeyspace(o),
      connect: (ks) => ks.connect(),
      close: (ks) => ks.close(),
      list: async (ks) => (await ks.read()).filter((r) => r.record),
      read: async (ks, machineId) => (await ks.read(machineId))[0],
      // Drops the key mapping too, and with force the live key: the holder's renewal finds it gone.
      release: (ks, { machineId, record }, force) =>
        ks.adminRelease(machineId, record.owner ?? '', record.version, force),
      init: (ks, era, limit) => ks.initEra(era, limit),
      history: (ks) => ks.history(),
    });
  }
}

/** An inversify module binding `TOKENS.MachineIdProvider` to a Redis provider: one per service. */
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
