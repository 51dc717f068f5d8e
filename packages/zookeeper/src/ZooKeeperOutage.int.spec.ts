import { describe, expect, it } from 'vitest';
import { usePrivateZooKeeper } from './testing/usePrivateZooKeeper.js';
import { issueContinuously } from '@vesta/testkit';
import { eventually, FAST, startInstance, testRoot } from './testing/zkTestKit.js';

// A private ZooKeeper: this file kills and restarts it.
const zooKeeper = usePrivateZooKeeper();

describe('ZooKeeperMachineIdProvider when ZooKeeper dies', () => {
  it('stops issuing within the fence bound while ZooKeeper is down, and resumes with the same ids once it is back', async () => {
    const server = zooKeeper();
    const root = testRoot();
    // Sessions must outlive the outage so that they resume (ZooKeeper restores them from disk).
    const options = {
      connect: server.connect,
      root,
      sessionTimeoutMs: 20_000,
      reclaimAfterMs: 40_000,
    };
    const instances = await Promise.all(
      [0, 1, 2].map((i) => startInstance({ ...options, key: `gen-${i}` })),
    );
    const machineIds = instances.map((x) => x.lease.machineId);
    const issuing = issueContinuously(instances.map(({ service }) => service));
    const { seen, errors } = issuing;

    await eventually(() => seen.size > 0, 10_000);
    const issuedBeforeKill = seen.size;
    await server.stop({ kill: true });
    const fenced = await eventually(
      () => instances.every(({ service }) => !service.health().ok),
      20 * FAST.fenceAfterMs,
    );
    const frozenAt = seen.size;
    // Two more renewal turns of every instance, all missed while ZooKeeper is down.
    const missed = instances.map(({ lease }) => lease.stats.missedRenewals);
    await eventually(
      () => instances.every(({ lease }, i) => lease.stats.missedRenewals >= (missed[i] ?? 0) + 2),
      20 * FAST.refreshIntervalMs,
    );
    const issuedWhileFenced = seen.size - frozenAt;
    expect(instances.every(({ service }) => service.health().ok === false)).toBe(true);

    await server.restart();
    const resumed = await eventually(
      () => instances.every(({ service }) => service.health().ok),
      20_000,
    );
    const atResume = seen.size;
    await eventually(() => seen.size > atResume, 10_000);
    await issuing.stop();

    expect(issuedBeforeKill).toBeGreaterThan(0);
    expect(fenced).toBe(true);
    expect(issuedWhileFenced).toBe(0);
    expect(errors.get('MACHINE_ID_LEASE_LOST')).toBeGreaterThan(0);
    expect(resumed).toBe(true);
    expect(seen.size).toBeGreaterThan(atResume);
    expect(instances.map((x) => x.lease.machineId)).toEqual(machineIds);
    expect(instances.some((x) => x.lease.lost)).toBe(false);
    expect(issuing.duplicates()).toBe(0);
    await Promise.all(instances.map(({ service }) => service.close()));
  });
});
