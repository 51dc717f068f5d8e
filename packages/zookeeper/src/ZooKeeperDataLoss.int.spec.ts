import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ZooKeeperAdmin } from './ZooKeeperAdmin.js';
import { resolveZooKeeperMachineIdOptions } from './ZooKeeperMachineIdOptions.js';
import { usePrivateZooKeeper } from './testing/usePrivateZooKeeper.js';
import { issueContinuously, type IssueLoops } from '@vesta/testkit';
import { eventually, recordingLogger, startInstance, testRoot } from './testing/zkTestKit.js';

/**
 * The fleet's timings. The holder goes on issuing for up to `fenceAfterMs` after its last
 * confirmed write, longer than ZooKeeper takes to come back, so a newcomer that took the id at
 * once would issue beside it.
 */
const TIMING = {
  sessionTimeoutMs: 4000,
  refreshIntervalMs: 500,
  fenceAfterMs: 6000,
  reclaimAfterMs: 12_000,
  connectTimeoutMs: 2000,
  operationTimeoutMs: 2000,
  maxClockSkewMs: 500,
} as const;
/** The newcomer's wait on a tree without an era: the default for these timings. */
const ERA_WAIT_MS = resolveZooKeeperMachineIdOptions({
  connect: '127.0.0.1:1',
  ...TIMING,
}).eraWaitMs;

// A private ZooKeeper: this file wipes its data.
const zooKeeper = usePrivateZooKeeper();

describe('ZooKeeperMachineIdProvider when ZooKeeper loses its data', () => {
  it('hands out no id in the wiped tree before the holder is fenced, and the holder stops for good on seeing it', async () => {
    const server = zooKeeper();
    const root = testRoot();
    const logger = recordingLogger();
    // One id for both: the newcomer can only take the holder's (claims spread over a range).
    const range = { min: 5, max: 5 };
    // The first instance of a new tree: nothing to wait for.
    const a = await startInstance(
      {
        connect: server.connect,
        root,
        key: 'holder',
        logger,
        ...TIMING,
        eraWaitMs: 0,
      },
      { range },
    );
    const fromA = issueContinuously([a.service]);
    let fromB: IssueLoops | undefined;
    try {
      expect(await eventually(() => fromA.seen.size > 0)).toBe(true);

      // ZooKeeper comes back on the same port without its data, as a container without a volume.
      await server.stop({ kill: true });
      const dataDir = join(server.dataDir, 'data');
      rmSync(dataDir, { recursive: true, force: true });
      mkdirSync(dataDir);
      await server.restart();

      const startedAt = performance.now();
      const b = await startInstance(
        {
          connect: server.connect,
          root,
          key: 'newcomer',
          ...TIMING,
          // A JVM just restarted on a loaded machine may take a while to take sessions.
          connectTimeoutMs: 15_000,
          eraWaitMs: ERA_WAIT_MS,
        },
        { range },
      );
      const waitedMs = performance.now() - startedAt;
      const holderValidAtHandover = a.lease.valid;
      const issuedByHolderAtHandover = fromA.seen.size;
      const loopsOfB = issueContinuously([b.service]);
      fromB = loopsOfB;
      expect(await eventually(() => loopsOfB.seen.size > 0)).toBe(true);
      expect(await eventually(() => a.lease.lost, 20_000)).toBe(true);
      await fromA.stop();
      await loopsOfB.stop();

      // The newcomer got the holder's id, and only once the holder could no longer issue.
      expect(b.lease.machineId).toBe(a.lease.machineId);
      expect(waitedMs).toBeGreaterThanOrEqual(ERA_WAIT_MS);
      expect(holderValidAtHandover).toBe(false);
      expect(fromA.seen.size).toBe(issuedByHolderAtHandover);
      const both = [...loopsOfB.seen].filter((id) => fromA.seen.has(id)).length;
      expect(both, 'ids issued by both').toBe(0);
      expect(fromA.duplicates() + loopsOfB.duplicates()).toBe(0);

      // The holder stopped for good, and wrote nothing into the new tree.
      await expect(a.service.genId()).rejects.toMatchObject({ code: 'MACHINE_ID_LEASE_LOST' });
      expect(logger.messages.some((m) => m.includes('ZooKeeper lost its data'))).toBe(true);
      const rows = await new ZooKeeperAdmin({ connect: server.connect, root }).list();
      expect(rows.map((r) => [r.machineId, r.owner, r.alive])).toEqual([
        [b.lease.machineId, 'newcomer', true],
      ]);
      await b.service.close();
    } finally {
      await fromA.stop();
      await fromB?.stop();
      await a.service.close();
    }
  }, 60_000);
});
