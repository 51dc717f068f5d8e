import { randomUUID } from 'node:crypto';
import { silentLogger } from '@vesta/core';
import { startRedisServer, type RedisServer } from '@vesta/testkit';
import { describeMachineIdModule } from '@vesta/testkit/conformance';
import { afterAll, beforeAll } from 'vitest';
import { RedisAdmin } from './redisCoordinator.js';
import { redisMachineIdModule } from './redisCoordinator.js';
import { RedisMachineIdProvider } from './RedisMachineIdProvider.js';

let redis: RedisServer | undefined;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.dispose();
});
const url = (): string => {
  if (redis === undefined) throw new Error('redis-server is not started');
  return redis.url;
};

describeMachineIdModule({
  name: 'Redis',
  namespace: () => `module-${randomUUID().slice(0, 8)}`,
  module: (prefix, key) =>
    redisMachineIdModule({ url: url(), prefix, logger: silentLogger, ...(key && { key }) }),
  eraOpener: (prefix) =>
    new RedisMachineIdProvider({ url: url(), prefix, eraWaitMs: 0, logger: silentLogger }),
  list: (prefix) => new RedisAdmin({ url: url(), prefix }).list(),
});
