import {
  decodeJournalEntry,
  encodeJournalEntry,
  type LeaseJournal,
  type LeaseJournalEntry,
} from '@vesta/lease';
import { isZkError, ZK, type ZkClient } from './ZkClient.js';
import type { ZkLayout } from './ZkLayout.js';

/** Removals one trim keeps in flight at once. */
const TRIM_BATCH = 100;

/**
 * The lease journal as sequential nodes under `{root}/history` (made on the first append). An
 * append creates one node, then reads the folder's child count: past `retention` plus a tenth
 * (listing the folder is not done on every append), it removes the oldest down to `retention`,
 * a hundred at once.
 * `zk` is the client to write on now (a lease's connection may have been reopened).
 */
export function zkJournal(zk: () => ZkClient, layout: ZkLayout, retention: number): LeaseJournal {
  const prefix = `${layout.history}/e-`;
  return {
    append: async (entry) => {
      const client = zk();
      const data = Buffer.from(encodeJournalEntry(entry));
      try {
        await client.createSequential(prefix, data);
      } catch (error) {
        if (!isZkError(error, ZK.NO_NODE)) throw error;
        await client.mkdirp(layout.history);
        await client.createSequential(prefix, data);
      }
      const count = (await client.exists(layout.history))?.numChildren ?? 0;
      if (count <= retention + Math.floor(retention / 10)) return;
      const names = (await client.getChildren(layout.history)).sort();
      const oldest = names.slice(0, names.length - retention);
      // The start waits for its append, trim included, and its fence runs meanwhile: a hundred
      // removals in flight at once, not a round trip each (a thousand at the default retention).
      for (let at = 0; at < oldest.length; at += TRIM_BATCH) {
        await Promise.all(
          // A concurrent trim may have removed some already.
          oldest
            .slice(at, at + TRIM_BATCH)
            .map((name) => client.removeIfPresent(`${layout.history}/${name}`)),
        );
      }
    },
  };
}

/** Every entry the journal keeps, oldest first; none when it was never written. */
export async function readZkJournal(zk: ZkClient, layout: ZkLayout): Promise<LeaseJournalEntry[]> {
  const names = await zk.childrenOf(layout.history);
  const nodes = await Promise.all(
    names.sort().map((name) => zk.getData(`${layout.history}/${name}`)),
  );
  return nodes.flatMap((n) =>
    n === undefined ? [] : (decodeJournalEntry(n.data.toString()) ?? []),
  );
}
