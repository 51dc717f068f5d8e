import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { systemTimeSource, VestaError, type Logger, type TimeSource } from '@vesta/core';
import { sleepOn } from '@vesta/core/kit';
import { EraWait } from '@vesta/lease';
import { decodeEraNode, encodeJson } from './IdNodeData.js';
import { isZkError, ZK, type ZkClient } from './ZkClient.js';
import type { ZkLayout } from './ZkLayout.js';

/**
 * Returns the allocation era of the tree under `layout.root`, once it is open.
 *
 * A tree without an era node is new, or ZooKeeper lost its data (restarted without its data
 * directory) while instances may still hold and issue under ids of the lost tree. Those fence
 * themselves at most their fencing bound after their last confirmed write, which happened before
 * the loss, so before this call saw no era. The era is created closed, and nobody takes an id
 * until `waitMs` (monotonic clock) has passed since the caller itself first saw the era missing
 * or closed (see {@link EraWait}); then whoever gets there first opens it. Holders of the lost
 * tree notice that their era's token node (`{root}/era/{era}`) is gone and stop for good.
 */
export async function enterAllocationEra(
  zk: ZkClient,
  layout: ZkLayout,
  waitMs: number,
  logger: Logger,
  time: TimeSource = systemTimeSource,
): Promise<string> {
  const wait = new EraWait(time, waitMs);
  for (;;) {
    const node = await zk.getData(layout.era);
    const seenAt = wait.seenAt();
    if (node === undefined) {
      wait.observe(undefined, seenAt);
      const era = randomUUID();
      try {
        await zk.multi([
          {
            op: 'create',
            path: layout.era,
            data: encodeJson({ era, open: false, host: hostname(), pid: process.pid }),
            ephemeral: false,
          },
          { op: 'create', path: layout.eraToken(era), data: Buffer.alloc(0), ephemeral: false },
        ]);
        logger.warn(
          { root: layout.root, era, waitMs },
          'no allocation era in ZooKeeper (a new tree, or ZooKeeper lost its data): no machine id is handed out until every holder of a lost tree is fenced',
        );
      } catch (error) {
        if (!isZkError(error, ZK.NODE_EXISTS)) throw error;
      }
      continue;
    }
    const data = decodeEraNode(node.data);
    if (data === undefined) {
      throw new VestaError(
        'ZOOKEEPER_UNAVAILABLE',
        `${layout.era} holds data this package did not write; remove it by hand to start a new allocation era`,
        { details: { path: layout.era } },
      );
    }
    if (data.open) return data.era;
    const remainingMs = wait.observe(data.era, seenAt);
    if (remainingMs > 0) {
      await sleepOn(time, remainingMs);
      continue;
    }
    try {
      await zk.setData(
        layout.era,
        encodeJson({ era: data.era, open: true, host: hostname(), pid: process.pid }),
        node.stat.version,
      );
      return data.era;
    } catch (error) {
      if (!isZkError(error, ZK.BAD_VERSION) && !isZkError(error, ZK.NO_NODE)) throw error;
    }
  }
}
