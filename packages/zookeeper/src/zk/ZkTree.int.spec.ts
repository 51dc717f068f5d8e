import { claimedJournalEntry } from '@vesta/lease/testing';
import { describe, expect, inject, it } from 'vitest';
import { testRoot, withZkClient } from '../testing/zkTestKit.js';
import { CreateMode, type ZkClient } from './ZkClient.js';
import { ZkTree } from './ZkTree.js';

const connect = inject('zookeeperConnect');

const claimed = claimedJournalEntry;

/** Runs `test` on a connected client and a fresh test root's layout; closes the client after. */
function withZk(test: (zk: ZkClient, layout: ZkTree) => Promise<void>): Promise<void> {
  return withZkClient(connect, (zk) => test(zk, new ZkTree(testRoot())));
}

describe('the ZooKeeper lease journal', () => {
  it('keeps its retention, and the newest entries, when many starts append and trim at once', async () => {
    await withZk(async (zk, layout) => {
      await zk.mkdirp(layout.root);
      const retention = 5;
      const journal = layout.journal(() => zk, retention);
      for (let n = 0; n < retention; n++) await journal.append(claimed(n));
      await Promise.all(Array.from({ length: 30 }, (_, i) => journal.append(claimed(100 + i))));
      const kept = await layout.readJournal(zk);
      expect(kept.length).toBeGreaterThanOrEqual(retention);
      // Each trim removes the oldest of the names it listed: never one of the newest.
      expect(kept.slice(-retention).every((e) => e.holder.startsWith('holder-1'))).toBe(true);
    });
  });

  it('trims past a hundred entries at once down to its retention, keeping the newest', async () => {
    await withZk(async (zk, layout) => {
      await zk.mkdirp(layout.history);
      const retention = 1500; // trimmed past 1650 entries, by 151 at once
      for (let batch = 0; batch < 17; batch++) {
        await Promise.all(
          Array.from({ length: 100 }, (_, i) =>
            zk.create(
              `${layout.history}/e-`,
              Buffer.from(JSON.stringify(claimed(batch * 100 + i))),
              CreateMode.PERSISTENT_SEQUENTIAL,
            ),
          ),
        );
      }
      await layout.journal(() => zk, retention).append(claimed(9999));
      const kept = await layout.readJournal(zk);
      expect(kept).toHaveLength(retention);
      expect(kept.at(-1)?.holder).toBe('holder-9999');
    });
  });
});
