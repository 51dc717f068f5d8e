import type { MachineIdProvider } from '@vesta/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../process/TestServer.js';
import { startFaultFleet, type FaultFleet } from '../startFaultFleet.js';

/** A coordinator of several members (an etcd cluster, a ZooKeeper ensemble), real processes. */
export interface Quorum {
  readonly members: readonly TestServer[];
  /** The member that leads now; undefined while none does. */
  leader(): Promise<TestServer | undefined>;
  /** Whether every member serves again (a member back from a fault has rejoined). */
  serving(): Promise<boolean>;
  /** Makes a member silent (SIGSTOP). */
  pause(member: TestServer): void;
  /** Lets it run again (SIGCONT). */
  resume(member: TestServer): void;
  dispose(): Promise<void>;
}

/** What {@link describeQuorumFaults} runs against. */
export interface QuorumFaultsHarness<Q extends Quorum> {
  /** `etcd`, `ZooKeeper`: in the suite's name. */
  readonly name: string;
  /** Starts the coordinator's members (once for the suite). */
  start(): Promise<Q>;
  /**
   * The instances' renewal interval and fence: the fence longer than the time the members take
   * to serve writes again after losing their leader (a ZooKeeper ensemble's `syncLimit ×
   * tickTime`, its election, the clients' reconnect), as the coordinator's README tells.
   */
  readonly timings: { readonly refreshIntervalMs: number; readonly fenceAfterMs: number };
  /**
   * A provider on every member of `quorum` in `namespace` under `key`, renewing every
   * `refreshIntervalMs` and fencing after `fenceAfterMs`.
   */
  provider(
    quorum: Q,
    namespace: string,
    key: string,
    timings: { readonly refreshIntervalMs: number; readonly fenceAfterMs: number },
  ): MachineIdProvider;
}

/** Real time while a fault lasts (its length is the point; nothing is asserted after it alone). */
const lasting = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let namespaces = 0;

/**
 * The faults a coordinator of several members must ride out, on three instances that issue all
 * along: each member in turn silent (the one an instance talks to, the leader among them), the
 * leader killed (-9) and back, and every member silent. With a quorum up, no instance is fenced
 * longer than a renewal interval; cut off from every member, each is fenced within its fence and
 * issues again once they return; no id is issued twice.
 */
export function describeQuorumFaults<Q extends Quorum>(harness: QuorumFaultsHarness<Q>): void {
  const TIMINGS = harness.timings;
  const REFRESH_MS = TIMINGS.refreshIntervalMs;
  const FENCE_MS = TIMINGS.fenceAfterMs;
  // Each fault lasts past the fence, so that an instance stuck on it would be fenced.
  const FAULT_MS = FENCE_MS + 1000;
  describe(`${harness.name} of 3 members under faults`, () => {
    let started: Q | undefined;
    beforeAll(async () => {
      started = await harness.start();
    }, 120_000);
    afterAll(async () => {
      await started?.dispose();
    });
    const quorum = (): Q => {
      if (started === undefined) throw new Error(`the ${harness.name} members are not started`);
      return started;
    };
    const fleet = (): Promise<FaultFleet> => {
      const namespace = `/quorum-${process.pid}-${++namespaces}`;
      return startFaultFleet(
        [0, 1, 2].map((i) => harness.provider(quorum(), namespace, `i-${i}`, TIMINGS)),
      );
    };
    /** Waits until every member serves again, under a leader (the next fault starts whole). */
    const led = async (): Promise<TestServer> => {
      const deadline = performance.now() + 60_000;
      for (;;) {
        const leader = await quorum().leader();
        if (leader !== undefined && (await quorum().serving())) return leader;
        if (performance.now() > deadline) throw new Error(`${harness.name} does not serve whole`);
        await lasting(100);
      }
    };

    it('keeps every instance issuing while each member in turn goes silent (the one it talks to, the leader): never fenced longer than a renewal interval, no id twice', async () => {
      const f = await fleet();
      try {
        for (const member of quorum().members) {
          quorum().pause(member);
          await lasting(FAULT_MS);
          quorum().resume(member);
          await led();
        }
      } finally {
        await f.stop();
      }
      expect(f.loops.duplicates()).toBe(0);
      expect(f.loops.seen.size).toBeGreaterThan(1000);
      expect(f.health.longestUnhealthyMs.map((ms) => ms <= REFRESH_MS)).toEqual([true, true, true]);
    }, 120_000);

    it('keeps every instance issuing through kill -9 of the leader and its return', async () => {
      const f = await fleet();
      try {
        const leader = await led();
        await leader.stop({ kill: true });
        await lasting(FAULT_MS);
        await leader.restart();
        await led();
      } finally {
        await f.stop();
      }
      expect(f.loops.duplicates()).toBe(0);
      expect(f.health.longestUnhealthyMs.map((ms) => ms <= REFRESH_MS)).toEqual([true, true, true]);
    }, 120_000);

    it('fences every instance within its bound once no member answers, and has them issue again when the members return', async () => {
      const f = await fleet();
      try {
        const cutAtMs = Date.now();
        for (const member of quorum().members) quorum().pause(member);
        const fencedBy = performance.now() + 2 * FENCE_MS;
        while (f.services.some((s) => s.health().ok) && performance.now() < fencedBy) {
          await lasting(20);
        }
        expect(f.services.map((s) => s.health().ok)).toEqual([false, false, false]);
        // Within its bound: no id carries a time past the fence of the last confirmation, which
        // was sent before the cut (read from the ids, whatever a loaded machine delays).
        const [first] = f.services;
        if (first === undefined) throw new Error('no service');
        const unitMs = first.transTime(1).getTime() - first.transTime(0).getTime();
        const lastMs = Math.max(
          ...[...f.loops.seen].map((id) => first.transTime(first.expId(id).time).getTime()),
        );
        expect(lastMs).toBeLessThan(cutAtMs + FENCE_MS + unitMs);
        for (const member of quorum().members) quorum().resume(member);
        await led();
        const issued = f.loops.seen.size;
        const deadline = performance.now() + 60_000;
        while (f.loops.seen.size < issued + 1000 || !f.services.every((s) => s.health().ok)) {
          if (performance.now() > deadline) throw new Error('the instances did not issue again');
          await lasting(50);
        }
      } finally {
        await f.stop();
      }
      expect(f.loops.duplicates()).toBe(0);
    }, 120_000);
  });
}
