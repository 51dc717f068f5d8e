import { defineCoordinator } from '@vesta/lease';
import { RedisAdmin } from './RedisAdmin.js';
import { redisMachineIdModule } from './redisMachineIdModule.js';

/** Redis as `--coordinator` takes it: one server, or the primary Sentinel names. */
export const redisCoordinator = defineCoordinator({
  schemes: ['redis', 'rediss', 'redis+sentinel'],
  form: 'redis://[[user]:password@]host:port[/db][?option=value...] or redis+sentinel://host:port[,host:port]/master-name[?option=value...]',
  example: 'redis://:secret@redis.internal:6379/0?prefix=prod&minReplicas=1',
  module: redisMachineIdModule,
  admin: (options) => new RedisAdmin(options),
});
