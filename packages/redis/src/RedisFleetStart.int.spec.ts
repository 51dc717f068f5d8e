import { randomUUID } from 'node:crypto';
import { startRedisServer } from '@vesta/testkit';
import { describeFleetStart } from '@vesta/testkit/conformance';
import { RedisAdmin } from './redisCoordinator.js';
import { RedisMachineIdProvider } from './RedisMachineIdProvider.js';

// 1,000 starts at once, each on its own connection to a redis-server of this file's own.
describeFleetStart({
  name: 'Redis',
  startCoordinator: () => startRedisServer(),
  namespace: () => `fleet-${randomUUID().slice(0, 8)}`,
  createProvider: (address, prefix, key) =>
    new RedisMachineIdProvider({
      url: `redis://${address}`,
      prefix,
      key,
      connectTimeoutMs: 15_000,
      // Generous: the suite runs this beside other files on 2 cores.
      operationTimeoutMs: 15_000,
      eraWaitMs: 0,
    }),
  list: (address, prefix) => new RedisAdmin({ url: `redis://${address}`, prefix }).list(),
});
