import { isZkError, statTimeMs, ZK, type ZkClient } from './ZkClient.js';
import type { ZkLayout } from './ZkLayout.js';

/**
 * Writes the clock node (creating it on first use) and returns ZooKeeper's timestamp of the write
 * (Unix ms): ZooKeeper's clock, for the provider's clock check.
 */
export async function writeClockNode(zk: ZkClient, layout: ZkLayout): Promise<number> {
  const path = layout.clock;
  try {
    return statTimeMs((await zk.setData(path, Buffer.alloc(0), -1)).mtime);
  } catch (error) {
    if (!isZkError(error, ZK.NO_NODE)) throw error;
    await zk.create(path, Buffer.alloc(0)).catch((e: unknown) => {
      if (!isZkError(e, ZK.NODE_EXISTS)) throw e;
    });
    return statTimeMs((await zk.setData(path, Buffer.alloc(0), -1)).mtime);
  }
}
