import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { LeaseJournalEntry } from '@vesta/lease';
import { claimedJournalEntry as claimed } from '@vesta/lease/testing';
import { eventually, freePort, TestResources } from '@vesta/testkit';
import { Etcd3 } from 'etcd3';
import { afterAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { EtcdNamespace, range } from './EtcdNamespace.js';

const endpoints = inject('etcdEndpoints');
const hosts = endpoints.split(',').map((e) => `http://${e}`);
let roots = 0;
const root = (): string => `/etcd-store-spec-${process.pid}-${++roots}`;
const stores: EtcdNamespace[] = [];
const storeOf = (ns: string): EtcdNamespace => {
  const store = new EtcdNamespace({
    endpoints: hosts,
    root: ns,
    connectTimeoutMs: 5000,
    operationTimeoutMs: 5000,
  });
  stores.push(store);
  return store;
};
const client = new Etcd3({ hosts });
const resources = new TestResources();
afterAll(async () => {
  for (const s of stores) s.close();
  client.close();
  await resources.dispose();
});

describe('EtcdNamespace', () => {
  it('reads the era key and an owner index entry alone, not every key after them', async () => {
    const ns = root();
    const store = storeOf(ns);
    await client.put(`${ns}/owners/a`).value('5');
    await client.put(`${ns}/owners/b`).value('6');
    await client.put(`${ns}/history/1`).value('{}');
    const era = await store.createEra('e1');
    expect(era.created).toBe(true);
    const read = await store.read({ era: true, indexOf: 'a', ids: [] });
    expect(read.era?.era).toBe('e1');
    expect(read.indexed).toBe(5);
    expect((await store.read({ indexOf: 'nobody', ids: [] })).indexed).toBeUndefined();
    // A range without an end is the key alone (an empty end sent as such reads on to the last key).
    {
      const keyAlone = (key: string) => range(Buffer.from(key));
      const r = await store.request((c, deadline) =>
        c.kvTxn({ success: [keyAlone(`${ns}/era`), keyAlone(`${ns}/owners/a`)] }, deadline),
      );
      const [era, owner] = r.responses.map((op) => op.responseRange?.kvs);
      expect(era?.map((kv) => kv.key.toString())).toEqual([`${ns}/era`]);
      expect(owner?.map((kv) => kv.key.toString())).toEqual([`${ns}/owners/a`]);
    }
  });

  it('reads the records and live and recent keys of a window of the key order and of single ids', async () => {
    const ns = root();
    const store = storeOf(ns);
    for (const id of [1, 10, 100, 2, 20, 3]) await client.put(`${ns}/ids/${id}`).value('{}');
    await client.put(`${ns}/live/10`).value('x');
    await client.put(`${ns}/recent/2`).value('');
    const ids = async (q: Parameters<EtcdNamespace['read']>[0]) =>
      (await store.read(q)).rows.map((r) => [r.machineId, r.live, r.recent]);
    // From `1` up to `2`: 1, 10, 100 (keys sort by digits).
    expect(await ids({ window: { from: '1', to: '2' } })).toEqual([
      [1, false, false],
      [10, true, false],
      [100, false, false],
    ]);
    expect(await ids({ window: { from: '2', to: undefined }, ids: [10] })).toEqual([
      [2, false, true],
      [3, false, false],
      [10, true, false],
      [20, false, false],
    ]);
    expect((await ids({})).length).toBe(6);
  });

  it("reads a claim round's ids in the transaction that opens the era, whether it opened it or another start did", async () => {
    const ns = root();
    await client.put(`${ns}/ids/3`).value('{}');
    await client.put(`${ns}/live/3`).value('x');
    const store = storeOf(ns);
    const closed = (await store.createEra('e')).after;
    if (closed === undefined) throw new Error('no era created');
    const rows = (r: { also?: { rows: { machineId: number; live: boolean }[] } }) =>
      r.also?.rows.map((row) => [row.machineId, row.live]);
    const opened = await store.openEra(closed, { window: { from: '3', to: '4' } });
    expect(opened.era?.open).toBe(true);
    expect(rows(opened)).toEqual([[3, true]]);
    // Opened already: the transaction fails, and still reads the era key and the window.
    const again = await storeOf(ns).openEra(closed, { ids: [3] });
    expect(again.era).toMatchObject({ era: 'e', open: true });
    expect(rows(again)).toEqual([[3, true]]);
  });

  it('creates an era indexed only while no record exists, and opens it as it was', async () => {
    const fresh = storeOf(root());
    const created = (await fresh.createEra('new')).after;
    if (created === undefined) throw new Error('no era created');
    expect(created.indexed).toBe(true);
    const opened = await fresh.openEra(created);
    expect(opened.era).toMatchObject({ era: 'new', open: true, indexed: true });
    expect((await fresh.read({ era: true, ids: [] })).era?.indexed).toBe(true);

    const ns = root();
    await client.put(`${ns}/ids/7`).value('{}');
    const over = storeOf(ns);
    const after = (await over.createEra('over')).after;
    if (after === undefined) throw new Error('no era created');
    expect(after.indexed).toBe(false);
    expect((await over.openEra(after)).era?.indexed).toBe(false);
    expect((await over.read({ era: true, ids: [] })).era?.indexed).toBe(false);
  });
});

describe('the etcd keep-alive stream', () => {
  it("matches each answer to its lease by id, in whatever order leases come back (etcd's gRPC proxy answers each on its own)", async () => {
    const [port, dataDir] = [await freePort(), resources.tempDir('vesta-etcd-proxy-')];
    const [listen, data] = [`--listen-addr=127.0.0.1:${port}`, `--data-dir=${dataDir}`];
    const proxy = spawn('etcd', ['grpc-proxy', 'start', `--endpoints=${endpoints}`, listen, data], {
      stdio: 'ignore',
    });
    onTestFinished(() => void proxy.kill('SIGKILL'));
    const store = new EtcdNamespace({
      endpoints: [`http://127.0.0.1:${port}`],
      root: root(),
      connectTimeoutMs: 5000,
      operationTimeoutMs: 5000,
    });
    stores.push(store);
    const ttls = { fenceAfterMs: 3000, reclaimAfterMs: 3000 };
    const grant = () => store.keepLeases(undefined, ttls).then((l) => [l.live, l.recent]);
    expect(await eventually(() => grant().then(Boolean, () => false))).toBe(true);
    const leases = (await Promise.all([grant(), grant(), grant()])).flat();
    await store.revoke(leases[2] as string);
    // The proxy sends each lease's answer from a goroutine of its own: six rarely keep their order.
    for (let round = 0; round < 3; round++) {
      expect(await store.keepAliveAll(leases)).toEqual([true, true, false, true, true, true]);
    }
  });
});

/** Writes entries 0 to count - 1 of `entryOf` under `ns` as the journal does, 100 a transaction. */
async function fill(
  ns: string,
  count: number,
  entryOf: (n: number) => LeaseJournalEntry,
): Promise<void> {
  const store = storeOf(ns);
  for (let batch = 0; batch < count / 100; batch++) {
    await store.request((c, deadline) =>
      c.kvTxn(
        {
          success: Array.from({ length: 100 }, (_, i) => {
            const n = batch * 100 + i;
            const key = `${ns}/history/${String(n).padStart(15, '0')}-fill`;
            const value = JSON.stringify(entryOf(n));
            return { requestPut: { key: Buffer.from(key), value: Buffer.from(value) } };
          }),
        },
        deadline,
      ),
    );
  }
}

describe('the etcd lease journal', () => {
  it('never trims below its retention when many starts append at once', async () => {
    const store = storeOf(root());
    const retention = 5;
    const append = (entry: LeaseJournalEntry) => store.appendJournal(entry, retention);
    for (let n = 0; n < retention; n++) await append(claimed(n));
    // Each append counts the keys, then deletes the oldest beyond the retention: concurrent
    // appends must not each delete another batch of what the others already trimmed.
    await Promise.all(Array.from({ length: 30 }, (_, i) => append(claimed(100 + i))));
    const kept = await store.readJournal();
    expect(kept.length).toBeGreaterThanOrEqual(retention);
    expect(kept.length).toBeLessThanOrEqual(retention + 30);
  });

  it('trims more entries than etcd takes in one transaction (128 operations by default) and the start goes on', async () => {
    const ns = root();
    const store = storeOf(ns);
    const retention = 1500; // trimmed past 1650 entries, by 151 at once
    await fill(ns, 1700, claimed);
    await store.appendJournal(claimed(9999), retention);
    const kept = await store.readJournal();
    expect(kept).toHaveLength(retention);
    expect(kept.at(-1)?.machineId).toBe(9999 % 1024);
  });
});

describe('the etcd lease journal, read whole', () => {
  it('reads a journal of its default retention plus a tenth, every holder key of the longest allowed', async () => {
    const ns = root();
    const store = storeOf(ns);
    const entries = 11_000;
    const long = (n: number): LeaseJournalEntry => ({
      ...claimed(n),
      holder: `${n}-`.padEnd(200, 'k'),
      instance: randomUUID(),
      floorMarkMs: 1_700_000_000_000,
    });
    await fill(ns, entries, long);
    const kept = await store.readJournal();
    expect(kept).toHaveLength(entries);
    expect(kept.at(-1)?.holder).toBe(long(entries - 1).holder);
  });
});
