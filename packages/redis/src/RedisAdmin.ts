import {
  allocationOf,
  defineAdminOptions,
  LeaseAdmin,
  listAllocations,
  type AdminOptionsOf,
  type AdminStore,
  type LeaseAllocation,
  type ReleaseOutcome,
} from '@vesta/lease';
import { redisMachineIdOptions, withRedisUrlOptions } from './RedisMachineIdOptions.js';
import { RedisConnection } from './redis/RedisConnection.js';
import type { RedisTarget } from './redis/redisTarget.js';
import { RedisLayout } from './redis/RedisLayout.js';
import { REDIS_SCRIPTS } from './redis/REDIS_SCRIPTS.js';
import { readRedisJournal } from './redis/redisJournal.js';
import { decodeRedisIdRecord } from './redis/readRedisClaimSnapshot.js';

/** The declaration of {@link RedisAdminOptions}: the provider's connection, a deadline. */
const redisAdminOptions = defineAdminOptions('Redis', redisMachineIdOptions.schema, [
  'url',
  'prefix',
]);

/** Options of {@link RedisAdmin}: the provider's `url` and `prefix`, and `timeoutMs`. */
export type RedisAdminOptions = AdminOptionsOf<typeof redisAdminOptions>;

/**
 * One machine id's allocation, as {@link RedisAdmin.list} reports it: `alive` when a live lease
 * holds it, `ageMs` on Redis's clock.
 */
export type RedisMachineIdAllocation = LeaseAllocation;

/** Redis as its admin reaches it: one connection per call, the prefix's keys. */
function redisAdminStore(
  o: ReturnType<typeof redisAdminOptions.resolve>,
  target: RedisTarget,
): AdminStore<RedisMachineIdAllocation, RedisConnection> {
  const L = new RedisLayout(o.prefix);
  const read = async (conn: RedisConnection, machineId: number) => {
    const [hash, live] = await Promise.all([
      conn.run((r) => r.hgetall(L.id(machineId))),
      conn.run((r) => r.exists(L.live(machineId))),
    ]);
    return { hash, record: decodeRedisIdRecord(hash), alive: live === 1 };
  };
  return {
    store: 'Redis',
    where: `under ${L.prefix}`,
    namespace: `Redis under prefix ${L.prefix}`,
    open: () =>
      new RedisConnection(target, {
        connectTimeoutMs: o.timeoutMs,
        operationTimeoutMs: o.timeoutMs,
      }),
    connect: (conn) => conn.connect(),
    close: (conn) => conn.close(),
    list: async (conn) => {
      const ids = await conn.run((r) => r.smembers(L.ids));
      const nowMs = await conn.nowMs();
      return listAllocations(ids, async (machineId) => {
        const { record, alive } = await read(conn, machineId);
        if (record === undefined) return undefined;
        return allocationOf(machineId, record, {
          alive,
          ageMs: Math.max(0, nowMs - record.touchedMs),
        });
      });
    },
    read: async (conn, machineId, force) => {
      const { hash, record, alive } = await read(conn, machineId);
      if (Object.keys(hash).length === 0) return undefined;
      if (record === undefined) return 'unreadable';
      return {
        allocation: allocationOf(machineId, record, { alive }),
        // Drops the key mapping too, and with force the live key: the holder's renewal finds it gone.
        release: async () => {
          const [outcome] = (await conn.eval(
            REDIS_SCRIPTS.adminRelease,
            [L.id(machineId), L.live(machineId), L.key(record.owner ?? '')],
            [record.version, force ? '1' : '0', machineId],
          )) as [string];
          return outcome === 'ok' ? 'released' : (outcome as ReleaseOutcome);
        },
      };
    },
    // Only when no key at all lies under the prefix (no era, id record, live key or key
    // mapping), in one script. The prefix is letters, digits and . _ - : / only: nothing in the
    // pattern is a glob.
    init: async (conn, era, limit) => {
      const [outcome, ...found] = (await conn.eval(
        REDIS_SCRIPTS.initEra,
        [L.era],
        [era, `{${L.prefix}}:*`, limit],
      )) as string[];
      return outcome === 'ok' ? { created: true } : { found };
    },
    history: (conn) => readRedisJournal(conn, L),
  };
}

/**
 * Operators' view of a fleet's allocations in Redis: list them (`ageMs` on Redis's clock),
 * release an id by hand, declare a prefix new (see {@link LeaseAdmin}). Validates the options
 * (INVALID_OPTIONS); connects on each call.
 */
export class RedisAdmin extends LeaseAdmin<RedisMachineIdAllocation, RedisConnection> {
  /** The URL's query may name the prefix (`?prefix=`); the provider's other options in it are ignored. */
  constructor(options: RedisAdminOptions) {
    const { target, ...given } = withRedisUrlOptions(options, ['prefix']);
    const o = redisAdminOptions.resolve(given);
    // The schema refused a URL that does not read before this.
    if (target === undefined) throw new TypeError('unreachable: a Redis URL that does not read');
    super(redisAdminStore(o, target));
  }
}
