import { silentLogger } from '@vesta/core';
import { leaseHold, renewalTurn } from '@vesta/lease/testing';
import { machineIdRequest } from '@vesta/testkit';
import { describe, expect, inject, it } from 'vitest';
import { EtcdAdmin } from '../EtcdAdmin.js';
import { EtcdMachineIdProvider } from '../EtcdMachineIdProvider.js';
import type { EtcdMachineIdLease } from '../index.js';

const endpoints = inject('etcdEndpoints');
const REFRESH_MS = 30_000;

/**
 * Runs `test` on a lease of `key` under `root` (turns of 30 s: none of the lease's own while the
 * test drives its hold) and a read of the mark its record holds; releases the lease after.
 */
async function withHeldLease(
  root: string,
  key: string,
  fenceAfterMs: number,
  test: (lease: EtcdMachineIdLease, markOf: () => Promise<number | undefined>) => Promise<void>,
): Promise<void> {
  const lease = await new EtcdMachineIdProvider({
    endpoints,
    root,
    key,
    logger: silentLogger,
    refreshIntervalMs: REFRESH_MS,
    fenceAfterMs,
    reclaimAfterMs: 2 * fenceAfterMs,
    eraWaitMs: 0,
  }).acquire(machineIdRequest());
  const admin = new EtcdAdmin({ endpoints, root });
  try {
    await test(
      lease,
      async () => (await admin.list()).find((row) => row.machineId === lease.machineId)?.markMs,
    );
  } finally {
    await lease.release?.();
  }
}

/** A turn publishing `markMs`; `closes`: the lease closes once the turn took its mark. */
const turn = (markMs: number, closes: boolean) =>
  renewalTurn({ era: undefined, markMs: () => markMs, closesAtMark: closes });

describe('the etcd hold (EtcdNamespace.hold)', () => {
  it('sends no renewal once its lease closed during the keepalive, and keeps its last write', async () => {
    await withHeldLease(
      `/etcd-hold-spec-${process.pid}`,
      'hold-1',
      60_000,
      async (lease, markOf) => {
        const hold = leaseHold(lease);
        const claimedMarkMs = await markOf();
        expect(await hold.renew(turn(Date.now() + 600_000, true))).toBe('missed');
        expect(await markOf()).toBe(claimedMarkMs);
        // The next turn writes under the revision the claim left: nothing of the closed turn moved it.
        const markMs = Date.now() + 600_000;
        expect(await hold.renew(turn(markMs, false))).toBe('confirmed');
        expect(await markOf()).toBe(markMs);
      },
    );
  });

  // A turn comes one refresh interval after the last write: the mark stands for F - R. Kept then,
  // the next turn would write with F - 2R left (about nothing with F just above 2R): no retry.
  it.each([
    { fenceAfterMs: 61_000, outcome: 'confirmed' },
    { fenceAfterMs: 120_000, outcome: 'kept' },
  ])(
    'with a fence of $fenceAfterMs ms and turns of 30 s, a turn one interval after a write is $outcome',
    async ({ fenceAfterMs, outcome }) => {
      const root = `/etcd-hold-spec-${process.pid}-${fenceAfterMs}`;
      await withHeldLease(root, 'hold-keeps', fenceAfterMs, async (lease, markOf) => {
        const claimedMarkMs = await markOf();
        const markMs = Date.now() + 600_000;
        const renewed = await leaseHold(lease).renew(
          renewalTurn({
            era: undefined,
            markMs: () => markMs,
            closesAtMark: false,
            markStandsMs: fenceAfterMs - REFRESH_MS,
          }),
        );
        expect(renewed).toBe(outcome);
        expect(await markOf()).toBe(outcome === 'kept' ? claimedMarkMs : markMs);
      });
    },
  );
});
