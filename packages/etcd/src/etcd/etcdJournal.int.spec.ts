import type { LeaseJournalEntry } from '@vesta/lease';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { EtcdStore } from './EtcdStore.js';
import { etcdJournal, readEtcdJournal } from './etcdJournal.js';

const endpoints = inject('etcdEndpoints');
const store = new EtcdStore({
  endpoints: endpoints.split(','),
  root: `/etcd-journal-spec-${process.pid}`,
  connectTimeoutMs: 5000,
  operationTimeoutMs: 5000,
});
afterAll(() => store.close());

const claimed = (n: number): LeaseJournalEntry => ({
  event: 'claimed',
  machineId: n,
  holder: `holder-${n}`,
  instance: `i-${n}`,
  atMs: 1_700_000_000_000 + n,
  floorMarkMs: 0,
});

describe('the etcd lease journal', () => {
  it('never trims below its retention when many starts append at once', async () => {
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
});
