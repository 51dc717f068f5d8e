import {
  decodeJournalEntry,
  encodeJournalEntry,
  type LeaseJournal,
  type LeaseJournalEntry,
} from '@vesta/lease';
import type { RedisConnection } from './RedisConnection.js';
import type { RedisLayout } from './RedisLayout.js';

/** The lease journal as a list under the prefix, trimmed to its newest `retention` entries. */
export function redisJournal(
  conn: RedisConnection,
  layout: RedisLayout,
  retention: number,
): LeaseJournal {
  return {
    append: async (entry) => {
      await conn.run((r) =>
        r
          .multi()
          .rpush(layout.history, encodeJournalEntry(entry))
          .ltrim(layout.history, -retention, -1)
          .exec(),
      );
    },
  };
}

/** Every entry the journal keeps, oldest first. */
export async function readRedisJournal(
  conn: RedisConnection,
  layout: RedisLayout,
): Promise<LeaseJournalEntry[]> {
  const texts = await conn.run((r) => r.lrange(layout.history, 0, -1));
  return texts.flatMap((t) => decodeJournalEntry(t) ?? []);
}
