import { randomUUID } from 'node:crypto';
import {
  decodeJournalEntry,
  encodeJournalEntry,
  type LeaseJournal,
  type LeaseJournalEntry,
} from '@vesta/lease';
import type { IRequestOp, IResponseOp } from 'etcd3';
import type { EtcdNamespace } from './EtcdNamespace.js';

const text = (value: string): Buffer => Buffer.from(value, 'utf8');

/** Keys one trim transaction deletes at most (etcd's --max-txn-ops is 128 by default). */
const TRIM_BATCH = 100;

/** Every key under `<root>/history/`, in the order etcd created them. */
function historyRange(store: EtcdNamespace) {
  const key = text(`${store.root}/history/`);
  const end = Buffer.from(key);
  end[end.length - 1] = (end[end.length - 1] ?? 0) + 1;
  return { key, range_end: end, sort_order: 'Ascend', sort_target: 'Create' } as const;
}

/** The lease journal of etcd, whose appends may ride in a claim's transaction. */
export interface EtcdJournal extends LeaseJournal {
  /** The operations of `entry`'s append: its put, then the count of the journal's keys. */
  appendOps(entry: LeaseJournalEntry): IRequestOp[];
  /**
   * Once a transaction ending with {@link appendOps} succeeded: trims the journal when that
   * count (`counted`, the transaction's last response, at its `revision`) passes the retention.
   */
  appended(counted: IResponseOp | undefined, revision: string): Promise<void>;
}

/**
 * The lease journal as keys `<root>/history/<time>-<random>`, read in etcd's creation order. An
 * append puts one key and counts the keys (count only) in one transaction (its own, or a claim's):
 * past `retention` plus a tenth (the oldest keys are not listed on every append), it deletes the
 * oldest of that count's snapshot down to `retention`, a hundred a transaction.
 */
export function etcdJournal(store: EtcdNamespace, retention: number): EtcdJournal {
  const range = historyRange(store);
  const journal: EtcdJournal = {
    appendOps: (entry) => [
      {
        request_put: {
          key: text(
            `${store.root}/history/${String(entry.atMs).padStart(15, '0')}-${randomUUID().slice(0, 8)}`,
          ),
          value: text(encodeJournalEntry(entry)),
        },
      },
      // In the same transaction as the put: the count sees it.
      { request_range: { ...range, sort_order: 'None', count_only: true } },
    ],
    appended: async (counted, revision) => {
      const count = Number(counted?.response_range.count ?? 0);
      if (count <= retention + Math.floor(retention / 10)) return;
      // The oldest keys of the very snapshot counted: concurrent trims then pick the same keys
      // (a delete of a deleted key is nothing), where the oldest of the keys left after another
      // trim would delete past the retention, down to an empty journal under a fleet's start.
      const oldest = await store.request((c, call) =>
        c.kv.range({ ...range, keys_only: true, limit: count - retention, revision }, call),
      );
      // etcd refuses a transaction of more than --max-txn-ops operations (128 by default).
      for (let at = 0; at < oldest.kvs.length; at += TRIM_BATCH) {
        const batch = oldest.kvs.slice(at, at + TRIM_BATCH);
        await store.request((c, call) =>
          c.kv.txn(
            {
              compare: [],
              success: batch.map((kv) => ({ request_delete_range: { key: kv.key } })),
            },
            call,
          ),
        );
      }
    },
    append: async (entry) => {
      // The put and the count in one transaction (one round trip).
      const r = await store.request((c, call) =>
        c.kv.txn({ compare: [], success: journal.appendOps(entry) }, call),
      );
      await journal.appended(r.responses.at(-1), r.header.revision);
    },
  };
  return journal;
}

/** Entries one read of the journal returns at most (a few hundred KiB, under grpc's 4 MiB). */
const READ_PAGE = 1000;

/**
 * Every entry the journal keeps, oldest first (in etcd's creation order): read a page at a time
 * in key order (one response of it all passes grpc's 4 MiB limit at the default retention with
 * long holder keys), each page at the first page's revision, then put in creation order.
 */
export async function readEtcdJournal(store: EtcdNamespace): Promise<LeaseJournalEntry[]> {
  const { key, range_end } = historyRange(store);
  const kvs: { created: bigint; key: Buffer; value: Buffer }[] = [];
  let revision: string | undefined;
  let from = key;
  // Bounded: each page starts past its predecessor's last key, and a journal holds at most
  // 10 000 000 entries (journalRetention's ceiling) plus a tenth.
  for (let page = 0; page < 11_000_000 / READ_PAGE + 1; page++) {
    const at = revision === undefined ? {} : { revision };
    const r = await store.request((c, call) =>
      c.kv.range({ key: from, range_end, limit: READ_PAGE, ...at }, call),
    );
    revision ??= r.header.revision;
    for (const kv of r.kvs) {
      kvs.push({ created: BigInt(kv.create_revision), key: kv.key, value: kv.value });
    }
    const last = r.kvs.at(-1);
    if (!r.more || last === undefined) break;
    from = Buffer.concat([last.key, Buffer.from([0])]); // the next key after it
  }
  kvs.sort((a, b) =>
    a.created === b.created ? Buffer.compare(a.key, b.key) : a.created < b.created ? -1 : 1,
  );
  return kvs.flatMap((kv) => decodeJournalEntry(kv.value.toString('utf8')) ?? []);
}
