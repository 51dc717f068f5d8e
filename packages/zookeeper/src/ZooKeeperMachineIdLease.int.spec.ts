import { silentLogger } from '@vesta/core';
import { leaseHold, renewalTurn } from '@vesta/lease/testing';
import { machineIdRequest, ManualTimeSource, TestResources } from '@vesta/testkit';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { ZooKeeperMachineIdProvider } from './ZooKeeperMachineIdProvider.js';
import type { ZooKeeperMachineIdLease } from './index.js';
import type { ZooKeeperMachineIdOptions } from './ZooKeeperMachineIdOptions.js';
import { leaseControl } from './testing/leaseControl.js';
import { eventually, FAST, testRoot, withZkClient } from './testing/zkTestKit.js';
import { decodeEraNode } from './zk/ZkTree.js';

const connect = inject('zookeeperConnect');
const REQUEST = machineIdRequest();
/** Sessions far longer than any test here: only manual time fences, never a real expiry. */
const TIMING = { ...FAST, sessionTimeoutMs: 20_000, reclaimAfterMs: 40_000 } as const;

const leases: ZooKeeperMachineIdLease[] = [];
const resources = new TestResources();
afterEach(() => {
  // No final write: some leases here sit behind a proxy that no longer answers.
  leases.splice(0).forEach((lease) => leaseControl(lease).abandon());
});
afterAll(() => resources.dispose());

/** A provider on `time` (its wall clock starts at the host's, which ZooKeeper's skew check needs). */
function provider(time: ManualTimeSource, extra: Partial<ZooKeeperMachineIdOptions> = {}) {
  return new ZooKeeperMachineIdProvider({
    connect,
    root: testRoot(),
    logger: silentLogger,
    ...TIMING,
    time,
    ...extra,
  });
}

async function acquire(p: ZooKeeperMachineIdProvider): Promise<ZooKeeperMachineIdLease> {
  const lease = await p.acquire(REQUEST);
  leases.push(lease);
  return lease;
}

/** Fires the next renewal turn and waits (on ZooKeeper's answer) until it confirmed the lease. */
async function renewOnce(time: ManualTimeSource, lease: ZooKeeperMachineIdLease): Promise<void> {
  const before = lease.stats.renewals;
  await time.advance(TIMING.refreshIntervalMs);
  expect(await eventually(() => lease.stats.renewals > before)).toBe(true);
}

describe('ZooKeeperMachineIdLease on manual time', () => {
  it('renews once per refresh interval of its time source, and a renewal moves its fencing bound', async () => {
    const time = new ManualTimeSource(Date.now());
    const lease = await acquire(provider(time));
    expect(lease.stats).toMatchObject({ renewals: 0, fenced: false, confirmedAgeMs: 0 });
    for (let i = 1; i <= 3; i++) await renewOnce(time, lease);
    // Each confirmation counts from the turn it was sent at: manual time stood still since.
    expect(lease.stats).toMatchObject({ renewals: 3, missedRenewals: 0, confirmedAgeMs: 0 });
    expect(lease.valid).toBe(true);
  });

  it('fences exactly fenceAfterMs after its last confirmation when ZooKeeper stops answering, and resumes on the next renewal', async () => {
    const time = new ManualTimeSource(Date.now());
    const proxy = await resources.proxy(connect);
    const lease = await acquire(provider(time, { connect: proxy.address }));
    proxy.refuse();

    await time.advance(TIMING.fenceAfterMs - 1);
    expect(lease.valid).toBe(true);
    expect(() => lease.assertValid()).not.toThrow();
    await time.advance(1);
    expect(lease.valid).toBe(false);
    expect(lease.stats).toMatchObject({ fenced: true, lost: false, renewals: 0 });
    expect(lease.stats.missedRenewals).toBe(TIMING.fenceAfterMs / TIMING.refreshIntervalMs);
    expect(() => lease.assertValid()).toThrow(
      expect.objectContaining({ code: 'MACHINE_ID_LEASE_LOST' }),
    );

    proxy.forward();
    expect(
      await eventually(() => /^SYNC_CONNECTED/.test(leaseControl(lease).connectionState())),
    ).toBe(true);
    await renewOnce(time, lease);
    expect(lease.valid).toBe(true);
    expect(lease.lost).toBe(false);
  });
});

describe('ZooKeeperMachineIdProvider on manual time', () => {
  it('hands out no id on a tree without an era until eraWaitMs of its monotonic time has passed', async () => {
    const time = new ManualTimeSource(Date.now());
    const eraWaitMs = 5_000;
    let settled = false;
    const pending = acquire(provider(time, { eraWaitMs })).finally(() => {
      settled = true;
    });
    // The era is created closed, and the start sleeps on its time source.
    expect(await eventually(() => time.pendingTimers === 1)).toBe(true);
    await time.advance(eraWaitMs - 1);
    expect(settled).toBe(false);
    await time.advance(1);
    const lease = await pending;
    expect(time.monotonic()).toBe(eraWaitMs);
    expect(lease.valid).toBe(true);
  });

  it('keeps its version once its lease closed while its write ran: the next write misses and reads the node again', async () => {
    const time = new ManualTimeSource(Date.now());
    const root = testRoot();
    const lease = await acquire(provider(time, { root }));
    const era = await withZkClient(connect, async (zk) => {
      const node = await zk.getData(`${root}/era`);
      return node === undefined ? undefined : decodeEraNode(node.data)?.era;
    });
    expect(era).toBeDefined();
    // `closesAtMark`: the lease closes once the turn took its mark, while its write is on its way.
    const turn = (closesAtMark: boolean) =>
      renewalTurn({ era, markMs: () => time.now() + TIMING.fenceAfterMs, closesAtMark });
    const hold = leaseHold(lease);
    expect(await hold.renew(turn(true))).toBe('missed');
    // Its write landed uncounted: the next one misses the version and reads it back.
    expect(await hold.renew(turn(false))).toBe('missed');
    expect(await hold.renew(turn(false))).toBe('confirmed');
  });
});
