import { defineCoordinator } from './defineCoordinator.js';

/**
 * Redis leases (`@vesta/redis`): one server, or the primary Sentinel names. The URL goes to the
 * package whole: its query sets any of the provider's options (`?prefix=prod&minReplicas=1`).
 */
export const redisCoordinator = defineCoordinator({
  schemes: ['redis', 'rediss', 'redis+sentinel'],
  form: 'redis://[[user]:password@]host:port[/db][?option=value...] or redis+sentinel://host:port[,host:port]/master-name[?option=value...]',
  example: 'redis://:secret@redis.internal:6379/0?prefix=prod&minReplicas=1',
  parse: (url) => ({ url }),
  package: '@vesta/redis',
  load: () => import('@vesta/redis'),
  module: (pkg, options) => pkg.redisMachineIdModule(options),
  admin: (pkg, options) => new pkg.RedisAdmin(options),
});
