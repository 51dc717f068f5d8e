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
      const replies = await conn.run((r) =>
        r
          .multi()
          .rpush(layout.history, encodeJournalEntry(entry))
          .ltrim(layout.history, -retention, -1)
          .exec(),
      );
      // A transaction reports a failed command in its replies, not by rejecting.
      const failed = (replies ?? []).find(([error]) => error !== null)?.[0];
      if (failed != null) throw failed;
      if (replies === null) throw new Error('the journal append was aborted');
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
