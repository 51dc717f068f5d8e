import { silentLogger } from '@vesta/core';
import { leaseHold, renewalTurn } from '@vesta/lease/testing';
import { machineIdRequest } from '@vesta/testkit';
import { describe, expect, inject, it } from 'vitest';
import { EtcdAdmin } from '../EtcdAdmin.js';
import { EtcdMachineIdProvider } from '../EtcdMachineIdProvider.js';

const endpoints = inject('etcdEndpoints');

/** A turn publishing `markMs`; `closes`: the lease closes once the turn took its mark. */
const turn = (markMs: number, closes: boolean) =>
  renewalTurn({ era: undefined, markMs: () => markMs, closesAtMark: closes });

describe('etcdHold', () => {
  it('sends no renewal once its lease closed during the keepalive, and keeps its last write', async () => {
    const root = `/etcd-hold-spec-${process.pid}`;
    const lease = await new EtcdMachineIdProvider({
      endpoints,
      root,
      key: 'hold-1',
      logger: silentLogger,
      // No turn of the lease's own while the test drives its hold.
      refreshIntervalMs: 30_000,
      fenceAfterMs: 60_000,
      eraWaitMs: 0,
    }).acquire(machineIdRequest());
    const admin = new EtcdAdmin({ endpoints, root });
    const markOf = async (): Promise<number | undefined> =>
      (await admin.list()).find((row) => row.machineId === lease.machineId)?.markMs;
    try {
      const hold = leaseHold(lease);
      const claimedMarkMs = await markOf();
      expect(await hold.renew(turn(Date.now() + 600_000, true))).toBe('missed');
      expect(await markOf()).toBe(claimedMarkMs);
      // The next turn writes under the revision the claim left: nothing of the closed turn moved it.
      const markMs = Date.now() + 600_000;
      expect(await hold.renew(turn(markMs, false))).toBe('confirmed');
      expect(await markOf()).toBe(markMs);
    } finally {
      await lease.release?.();
    }
  });
});
