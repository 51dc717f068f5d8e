import { silentLogger } from '@vesta/core';
import { leaseHold, renewalTurn } from '@vesta/lease/testing';
import { codeOfAsync, eventually, machineIdRequest } from '@vesta/testkit';
import { Etcd3, type IKeyValue } from 'etcd3';
import { describeCachedLeaseStart } from '@vesta/testkit/conformance';
import { describe, expect, inject, it } from 'vitest';
import { EtcdAdmin } from './EtcdAdmin.js';
import type { EtcdMachineIdLease } from './index.js';
import type { EtcdMachineIdOptions } from './EtcdMachineIdOptions.js';
import { EtcdMachineIdProvider } from './EtcdMachineIdProvider.js';

const endpoints = inject('etcdEndpoints');
let roots = 0;
const root = (): string => `/etcd-spec-${process.pid}-${++roots}`;
const provider = (extra: Partial<EtcdMachineIdOptions> & { root: string }) =>
  new EtcdMachineIdProvider({
    endpoints,
    logger: silentLogger,
    refreshIntervalMs: 100,
    fenceAfterMs: 400,
    eraWaitMs: 0,
    ...extra,
  });

describeCachedLeaseStart({
  name: 'etcd',
  address: () => endpoints,
  namespace: root,
  createProvider: (address, namespace, settings) =>
    provider({ endpoints: address, root: namespace, ...settings }),
  list: (namespace) => new EtcdAdmin({ endpoints, root: namespace }).list(),
  history: (namespace) => new EtcdAdmin({ endpoints, root: namespace }).history(),
});

/** A held lease's keys (`ids`, `live`, `recent`), as a client of the test's own reaches them. */
interface HeldKeys {
  readonly client: Etcd3;
  /** The key of `sub` for the lease's machine id. */
  name(sub: string): string;
  /** Its key-value as etcd holds it now, or undefined when there is none. */
  read(sub: string): Promise<IKeyValue | undefined>;
}

/** Runs `test` on a lease of `key` under a fresh root and its keys; releases the lease after. */
async function withHeldKeys(
  key: string,
  test: (lease: EtcdMachineIdLease, keys: HeldKeys) => Promise<void>,
): Promise<void> {
  const ns = root();
  const lease = await provider({ root: ns, key }).acquire(machineIdRequest());
  const client = new Etcd3({ hosts: endpoints.split(',').map((e) => `http://${e}`) });
  const name = (sub: string): string => `${ns}/${sub}/${lease.machineId}`;
  try {
    await test(lease, {
      client,
      name,
      read: async (sub) => (await client.get(name(sub)).exec()).kvs[0],
    });
  } finally {
    client.close();
    await lease.release?.();
  }
}

describe('EtcdMachineIdProvider', () => {
  it('reads the record again after a renewal whose answer was lost (the write landed), and renews on from the revision it finds', async () => {
    // No turn of the lease's own while the test drives its hold.
    const lease = await provider({
      root: root(),
      key: 'unanswered',
      refreshIntervalMs: 30_000,
      fenceAfterMs: 60_000,
    }).acquire(machineIdRequest());
    try {
      const hold = leaseHold(lease);
      const turn = (closedAfterReads?: number) =>
        renewalTurn({
          era: undefined,
          markMs: () => Date.now() + 60_000,
          closesAtMark: false,
          ...(closedAfterReads === undefined ? {} : { closedAfterReads }),
        });
      // The write lands; its answer is dropped (the hold looks once before it, once after).
      expect(await hold.renew(turn(1))).toBe('missed');
      // Its compare fails on the revision the lost write made: read again, the record is ours.
      expect(await hold.renew(turn())).toBe('missed');
      expect(await hold.renew(turn())).toBe('confirmed');
      expect(lease.stats.lost).toBe(false);
    } finally {
      await lease.release?.();
    }
  });

  it('renews the record alone while its etcd leases hold, and puts the live and recent keys again under a new lease once one is gone', async () => {
    await withHeldKeys('renewing', async (_, { client, read: keyOf }) => {
      const claimedLive = await keyOf('live');
      const claimedRecord = await keyOf('ids');
      if (claimedLive === undefined || claimedRecord === undefined) throw new Error('not claimed');
      // Renewed (the record moved on), the live key as the claim wrote it.
      expect(
        await eventually(
          async () => (await keyOf('ids'))?.mod_revision !== claimedRecord.mod_revision,
        ),
      ).toBe(true);
      expect((await keyOf('live'))?.mod_revision).toBe(claimedLive.mod_revision);

      // The live lease gone (etcd deletes its key): the next renewal grants another and puts
      // the live key under it.
      const recentLease = (await keyOf('recent'))?.lease;
      await client.leaseClient.leaseRevoke({ ID: claimedLive.lease });
      expect(
        await eventually(async () => {
          const live = await keyOf('live');
          return live !== undefined && live.lease !== claimedLive.lease;
        }),
      ).toBe(true);
      expect((await keyOf('recent'))?.lease).toBe(recentLease);
      expect((await keyOf('ids'))?.value.toString()).toContain('"owner":"renewing"');
    });
  });

  it('writes the record only once the mark it published stands for half the fence or less, confirming the turns between by keep-alives', async () => {
    const ns = root();
    // A write publishes a mark 800 ms ahead: the three turns after it keep the leases alive only.
    const lease = await provider({ root: ns, key: 'sparing', fenceAfterMs: 800 }).acquire(
      machineIdRequest(),
    );
    const client = new Etcd3({ hosts: endpoints.split(',').map((e) => `http://${e}`) });
    try {
      expect(await eventually(async () => lease.stats.renewals >= 20, 15_000)).toBe(true);
      const record = (await client.get(`${ns}/ids/${lease.machineId}`).exec()).kvs[0];
      // The claim's write, then the renewals' writes: a key's version counts them.
      const writes = Number(record?.version) - 1;
      const { renewals } = lease.stats;
      expect(writes).toBeGreaterThan(0);
      expect(writes).toBeLessThanOrEqual(renewals / 2);
      expect(lease.valid).toBe(true);
    } finally {
      client.close();
      await lease.release();
    }
  });

  it('puts its live and recent keys back when they are deleted by hand while their etcd leases live', async () => {
    await withHeldKeys('kept', async (lease, { client, name, read: keyOf }) => {
      const live = await keyOf('live');
      const recent = await keyOf('recent');
      if (live === undefined || recent === undefined) throw new Error('not claimed');
      // Deleted, not expired: the leases live on, and with a missing live key the id would look
      // free to a restart, with a missing recent key reclaimable as soon as the holder died.
      await client.delete().key(name('live')).exec();
      await client.delete().key(name('recent')).exec();
      expect(
        await eventually(async () => {
          const [l, r] = await Promise.all([keyOf('live'), keyOf('recent')]);
          return l !== undefined && r !== undefined;
        }),
      ).toBe(true);
      // Under the same etcd leases, which were kept alive all along.
      expect((await keyOf('live'))?.lease).toBe(live.lease);
      expect((await keyOf('recent'))?.lease).toBe(recent.lease);
      expect(lease.stats.lost).toBe(false);
    });
  });

  it('gives a returning key its id through the owner index: a window and its own id read, not every id', async () => {
    const ns = root();
    const first = await provider({ root: ns, key: 'returning' }).acquire(machineIdRequest());
    const { machineId } = first;
    await first.release();
    // Others take ids meanwhile (keys of their own process only: no index entries).
    const others = await Promise.all(
      Array.from({ length: 20 }, () => provider({ root: ns }).acquire(machineIdRequest())),
    );
    try {
      const client = new Etcd3({ hosts: endpoints.split(',').map((e) => `http://${e}`) });
      const index = await client.getAll().prefix(`${ns}/owners/`).strings();
      client.close();
      expect(index).toEqual({ [`${ns}/owners/returning`]: String(machineId) });
      const again = provider({ root: ns, key: 'returning' });
      const lease = await again.acquire(machineIdRequest());
      expect(lease.machineId).toBe(machineId);
      expect(again.stats.reused).toBe(1);
      // The first round's window (the era's read with it), the own id when outside it, the claim.
      expect(again.roundTrips).toBeLessThanOrEqual(3);
      await lease.release();
    } finally {
      await Promise.all(others.map((o) => o.release()));
    }
  });

  it('gives a key its id back from a record an earlier version wrote (no owner index, an era not indexed), by reading every id once, and indexes it', async () => {
    const ns = root();
    const client = new Etcd3({ hosts: endpoints.split(',').map((e) => `http://${e}`) });
    try {
      const { genMethod, type } = machineIdRequest();
      // As the previous version left them: an open era without `indexed`, a dead holder's record.
      await client.put(`${ns}/era`).value(JSON.stringify({ era: 'before', open: true }));
      await client.put(`${ns}/ids/617`).value(
        JSON.stringify({
          owner: 'upgraded',
          instance: 'old',
          markMs: Date.now() - 60_000,
          genMethod,
          type,
        }),
      );
      const upgraded = provider({ root: ns, key: 'upgraded' });
      const lease = await upgraded.acquire(machineIdRequest());
      expect(lease.machineId).toBe(617);
      expect(upgraded.stats.reused).toBe(1);
      expect(await client.get(`${ns}/owners/upgraded`).string()).toBe('617');
      await lease.release();
      // Indexed now: the next start reads the window and the id, not every id.
      const next = provider({ root: ns, key: 'upgraded' });
      const back = await next.acquire(machineIdRequest());
      expect(back.machineId).toBe(617);
      expect(next.roundTrips).toBeLessThanOrEqual(3);
      await back.release();
    } finally {
      client.close();
    }
  });

  it("claims a dead owner's id in its range when the owner index names an id of the key outside the range (a restart with a smaller range)", async () => {
    const ns = root();
    const client = new Etcd3({ hosts: endpoints.split(',').map((e) => `http://${e}`) });
    try {
      const range = { min: 0, max: 127 };
      const { genMethod, type } = machineIdRequest(range);
      const dead = (owner: string): string =>
        JSON.stringify({ owner, instance: 'gone', markMs: Date.now() - 60_000, genMethod, type });
      // The key held 700 under a wider range (indexed), and every id of its range now is a dead
      // owner's: no window holds a fresh id, each holds reclaimable ones.
      await client.put(`${ns}/era`).value(JSON.stringify({ era: 'e', open: true, indexed: true }));
      await client.put(`${ns}/owners/shrunk`).value('700');
      await client.put(`${ns}/ids/700`).value(dead('shrunk'));
      await Promise.all(
        Array.from({ length: range.max + 1 }, (_, id) =>
          client.put(`${ns}/ids/${id}`).value(dead(`gone-${id}`)),
        ),
      );
      const shrunk = provider({ root: ns, key: 'shrunk' });
      const lease = await shrunk.acquire(machineIdRequest(range));
      expect(lease.machineId).toBeGreaterThanOrEqual(range.min);
      expect(lease.machineId).toBeLessThanOrEqual(range.max);
      expect(shrunk.stats.reclaimed).toBe(1);
      await lease.release();
    } finally {
      client.close();
    }
  });

  it('refuses inconsistent timings at construction (INVALID_OPTIONS)', async () => {
    expect(await codeOfAsync(async () => provider({ root: root(), fenceAfterMs: 100 }))).toBe(
      'INVALID_OPTIONS',
    );
    expect(await codeOfAsync(async () => provider({ root: 'no-slash' }))).toBe('INVALID_OPTIONS');
  });
});
