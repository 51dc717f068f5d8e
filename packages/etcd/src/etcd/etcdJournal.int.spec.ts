import { randomUUID } from 'node:crypto';
import type { LeaseJournalEntry } from '@vesta/lease';
import { claimedJournalEntry } from '@vesta/lease/testing';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { EtcdNamespace } from './EtcdNamespace.js';
import { etcdJournal, readEtcdJournal } from './etcdJournal.js';

const endpoints = inject('etcdEndpoints');
let roots = 0;
const stores: EtcdNamespace[] = [];
const storeOf = (): EtcdNamespace => {
  const store = new EtcdNamespace({
    endpoints: endpoints.split(','),
    root: `/etcd-journal-spec-${process.pid}-${++roots}`,
    connectTimeoutMs: 5000,
    operationTimeoutMs: 5000,
  });
  stores.push(store);
  return store;
};
afterAll(() => stores.forEach((s) => s.close()));

const claimed = claimedJournalEntry;

/** Writes entries 0 to count - 1 of `entryOf` as the journal writes them, 100 a transaction. */
async function fill(
  store: EtcdNamespace,
  count: number,
  entryOf: (n: number) => LeaseJournalEntry,
): Promise<void> {
  for (let batch = 0; batch < count / 100; batch++) {
    await store.request((c, call) =>
      c.kv.txn(
        {
          compare: [],
          success: Array.from({ length: 100 }, (_, i) => {
            const n = batch * 100 + i;
            const key = `${store.root}/history/${String(n).padStart(15, '0')}-fill`;
            const value = JSON.stringify(entryOf(n));
            return { request_put: { key: Buffer.from(key), value: Buffer.from(value) } };
          }),
        },
        call,
      ),
    );
  }
}

describe('the etcd lease journal', () => {
  it('never trims below its retention when many starts append at once', async () => {
    const store = storeOf();
    const retention = 5;
    const journal = etcdJournal(store, retention);
    for (let n = 0; n < retention; n++) await journal.append(claimed(n));
    // Each append counts the keys, then deletes the oldest beyond the retention: concurrent
    // appends must not each delete another batch of what the others already trimmed.
    await Promise.all(Array.from({ length: 30 }, (_, i) => journal.append(claimed(100 + i))));
    const kept = await readEtcdJournal(store);
    expect(kept.length).toBeGreaterThanOrEqual(retention);
    expect(kept.length).toBeLessThanOrEqual(retention + 30);
  });

  it('trims more entries than etcd takes in one transaction (128 operations by default) and the start goes on', async () => {
    const store = storeOf();
    const retention = 1500; // trimmed past 1650 entries, by 151 at once
    await fill(store, 1700, claimed);
    await etcdJournal(store, retention).append(claimed(9999));
    const kept = await readEtcdJournal(store);
    expect(kept).toHaveLength(retention);
    expect(kept.at(-1)?.machineId).toBe(9999 % 1024);
  });
});

describe('the etcd lease journal, read whole', () => {
  it('reads a journal of its default retention plus a tenth, every holder key of the longest allowed', async () => {
    const store = storeOf();
    const entries = 11_000;
    const long = (n: number): LeaseJournalEntry => ({
      ...claimed(n),
      holder: `${n}-`.padEnd(200, 'k'),
      instance: randomUUID(),
      floorMarkMs: 1_700_000_000_000,
    });
    await fill(store, entries, long);
    const kept = await readEtcdJournal(store);
    expect(kept).toHaveLength(entries);
    expect(kept.at(-1)?.holder).toBe(long(entries - 1).holder);
  });
});
