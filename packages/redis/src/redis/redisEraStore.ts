import type { LeaseEraState, LeaseEraStore } from '@vesta/lease';
import type { RedisConnection } from './RedisConnection.js';
import { REDIS_SCRIPTS } from './REDIS_SCRIPTS.js';

/**
 * The era hash `key` (`token`, `open`) as enterLeaseEra reads and writes it: one HMGET, and one
 * script each to create it closed and to open it (each atomic in Redis).
 */
export function redisEraStore(conn: RedisConnection, key: string): LeaseEraStore<LeaseEraState> {
  return {
    readEra: async () => {
      const [token, open] = await conn.run((r) => r.hmget(key, 'token', 'open'));
      return token === null || token === undefined ? undefined : { era: token, open: open === '1' };
    },
    createEra: async (era) => {
      const [outcome] = (await conn.eval(REDIS_SCRIPTS.createEra, [key], [era])) as string[];
      return outcome === 'ok';
    },
    openEra: async (found) => {
      await conn.eval(REDIS_SCRIPTS.openEra, [key], [found.era]);
    },
  };
}
