import { Redis } from 'ioredis';
import pg from 'pg';
import { PostgresSegmentStore } from '../postgres/PostgresSegmentStore.js';
import { RedisSegmentStore } from '../redis/RedisSegmentStore.js';
import type { SegmentRange, SegmentStore } from '../store/SegmentStore.js';

/** For the fleet tests: how to reach one kind of store, and how to read its handed-back ranges. */
export interface FleetStore {
  readonly kind: 'postgres' | 'redis';
  /** A store in `namespace` (a PostgreSQL schema, a Redis prefix). */
  store(url: string, namespace: string): SegmentStore;
  /** The ranges of `key` handed back and not claimed again, lowest first (read off the store's layout). */
  freeRanges(url: string, namespace: string, key: string): Promise<SegmentRange[]>;
}

export const FLEET_STORES: readonly FleetStore[] = [
  {
    kind: 'postgres',
    store: (url, namespace) =>
      new PostgresSegmentStore({ url, schema: namespace, operationTimeoutMs: 2000 }),
    freeRanges: async (url, namespace, key) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const r = await client.query<{ s: string; e: string }>(
          `SELECT range_start::text AS s, range_end::text AS e FROM "${namespace}".segments_free
            WHERE key = $1 ORDER BY range_start`,
          [key],
        );
        return r.rows.map((row) => ({ start: BigInt(row.s), end: BigInt(row.e) }));
      } finally {
        await client.end();
      }
    },
  },
  {
    kind: 'redis',
    store: (url, namespace) =>
      new RedisSegmentStore({ url, prefix: namespace, operationTimeoutMs: 2000 }),
    freeRanges: async (url, namespace, key) => {
      const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
      try {
        const members = await redis.zrange(`{${namespace}}:segment-free:${key}`, 0, -1);
        return members.map((m) => {
          const [start, end] = m.split(':') as [string, string];
          return { start: BigInt(start), end: BigInt(end) };
        });
      } finally {
        redis.disconnect(false);
      }
    },
  },
];
