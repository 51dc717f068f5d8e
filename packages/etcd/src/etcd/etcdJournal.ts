import { randomUUID } from 'node:crypto';
import {
  decodeJournalEntry,
  encodeJournalEntry,
  trimJournal,
  type LeaseJournal,
  type LeaseJournalEntry,
} from '@vesta/lease';
import type { IRequestOp, IResponseOp } from 'etcd3';
import { prefixEnd, type EtcdNamespace } from './EtcdNamespace.js';

/** Every key under `<root>/history/`, in the order etcd created them. */
function historyRange(store: EtcdNamespace) {
  const key = Buffer.from(`${store.root}/history/`);
  return { key, range_end: prefixEnd(key), sort_order: 'Ascend', sort_target: 'Create' } as const;
}

/** The lease journal of etcd, whose appends may ride in a claim's transaction. */
export interface EtcdJournal extends LeaseJournal {
  /** `entry`'s put, then the count of the journal's keys. */
  appendOps(entry: LeaseJournalEntry): IRequestOp[];
  /** After a transaction ending with {@link appendOps}: trims past the retention. */
  appended(counted: IResponseOp | undefined, revision: string): Promise<void>;
}

/**
 * The journal as keys `<root>/history/<time>-<random>`. A trim reads the oldest keys of the very
 * snapshot counted (concurrent trims then pick the same keys, not the oldest left after another's).
 */
export function etcdJournal(store: EtcdNamespace, retention: number): EtcdJournal {
  const range = historyRange(store);
  const journal: EtcdJournal = {
    appendOps: (entry) => [
      {
        request_put: {
          key: Buffer.from(
            `${store.root}/history/${String(entry.atMs).padStart(15, '0')}-${randomUUID().slice(0, 8)}`,
          ),
          value: Buffer.from(encodeJournalEntry(entry)),
        },
      },
      { request_range: { ...range, sort_order: 'None', count_only: true } },
    ],
    appended: (counted, revision) =>
      trimJournal({
        count: Number(counted?.response_range.count ?? 0),
        retention,
        oldest: async (n) =>
          (
            await store.request((c, call) =>
              c.kv.range({ ...range, keys_only: true, limit: n, revision }, call),
            )
          ).kvs.map((kv) => kv.key),
        remove: async (keys) => {
          const success = keys.map((key) => ({ request_delete_range: { key } }));
          await store.request((c, call) => c.kv.txn({ compare: [], success }, call));
        },
      }),
    append: async (entry) => {
      const r = await store.request((c, call) =>
        c.kv.txn({ compare: [], success: journal.appendOps(entry) }, call),
      );
      await journal.appended(r.responses.at(-1), r.header.revision);
    },
  };
  return journal;
}

/**
 * Every entry the journal keeps, in etcd's creation order: read a thousand at a time in key order
 * (one response of it all can pass grpc's 4 MiB), each page at the first page's revision.
 */
export async function readEtcdJournal(store: EtcdNamespace): Promise<LeaseJournalEntry[]> {
  const { key, range_end } = historyRange(store);
  const kvs: { created: bigint; key: Buffer; value: Buffer }[] = [];
  let revision: string | undefined;
  let from = key;
  // Bounded: a journal holds at most 10 000 000 entries (the retention's ceiling) plus a tenth.
  for (let page = 0; page < 11_001; page++) {
    const at = revision === undefined ? {} : { revision };
    const r = await store.request((c, call) =>
      c.kv.range({ key: from, range_end, limit: 1000, ...at }, call),
    );
    revision ??= r.header.revision;
    for (const kv of r.kvs) {
      kvs.push({ created: BigInt(kv.create_revision), key: kv.key, value: kv.value });
    }
    const last = r.kvs.at(-1);
    if (!r.more || last === undefined) break;
    from = Buffer.concat([last.key, Buffer.from([0])]);
  }
  kvs.sort((a, b) =>
    a.created === b.created ? Buffer.compare(a.key, b.key) : a.created < b.created ? -1 : 1,
  );
  return kvs.flatMap((kv) => decodeJournalEntry(kv.value.toString('utf8')) ?? []);
}
