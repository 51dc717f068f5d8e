import { defineCoordinator } from './defineCoordinator.js';
import { parseClientUrl } from './parseClientUrl.js';

/** Redis leases (`@vesta/redis`): the client's URL and the key prefix (`?prefix=`). */
export const redisCoordinator = defineCoordinator({
  schemes: ['redis', 'rediss'],
  form: 'redis://[[user]:password@]host:port[/db][?prefix=name]',
  example: 'redis://:secret@redis.internal:6379/0?prefix=prod',
  parse: (text) =>
    parseClientUrl(text, 'Redis', 'redis://host:port[/db][?prefix=name]', ['prefix']),
  package: '@vesta/redis',
  load: () => import('@vesta/redis'),
  module: (pkg, options) => pkg.redisMachineIdModule(options),
  admin: (pkg, options) => new pkg.RedisAdmin(options),
});
