import { isZkError, statTimeMs, ZK, type ZkClient } from './ZkClient.js';
import type { ZkLayout } from './ZkLayout.js';

/**
 * Writes the clock node and returns ZooKeeper's timestamp of the write (Unix ms): ZooKeeper's
 * clock as of now (the node's last write is not "now"), for the provider's clock check and the
 * admin's ages. Where there is no clock node, `missing` answers when given (a read-only probe,
 * the admin's); else the node is created (on first use) and written.
 */
export async function writeClockNode(
  zk: ZkClient,
  layout: ZkLayout,
  missing?: () => Promise<number>,
): Promise<number> {
  const write = async (): Promise<number> =>
    statTimeMs((await zk.setData(layout.clock, Buffer.alloc(0), -1)).mtime);
  try {
    return await write();
  } catch (error) {
    if (!isZkError(error, ZK.NO_NODE)) throw error;
    if (missing !== undefined) return missing();
  }
  await zk.create(layout.clock, Buffer.alloc(0)).catch((e: unknown) => {
    if (!isZkError(e, ZK.NODE_EXISTS)) throw e;
  });
  return write();
}
