import { VestaError, type TimeSource } from '@vesta/core';
import { isZkError, statTimeMs, ZK, type ZkClient } from './ZkClient.js';
import type { ZkLayout } from './ZkLayout.js';

/** ZooKeeper's clock as this host can tell it. */
export interface ZooKeeperClock {
  /** ZooKeeper's clock now (Unix ms): its last reading, extrapolated on the monotonic clock. */
  at(): number;
}

/**
 * Writes the clock node and compares ZooKeeper's timestamp of the write with this host's clock at
 * the middle of the round trip. Throws CLOCK_OUT_OF_SYNC beyond `maxClockSkewMs` (plus half the
 * round trip); returns ZooKeeper's clock, extrapolated on the monotonic one.
 */
export async function checkZooKeeperClock(
  zk: ZkClient,
  layout: ZkLayout,
  maxClockSkewMs: number,
  time: TimeSource,
): Promise<ZooKeeperClock> {
  const path = layout.clock;
  const write = async (): Promise<number> => {
    try {
      return statTimeMs((await zk.setData(path, Buffer.alloc(0), -1)).mtime);
    } catch (error) {
      if (!isZkError(error, ZK.NO_NODE)) throw error;
      await zk.create(path, Buffer.alloc(0)).catch((e: unknown) => {
        if (!isZkError(e, ZK.NODE_EXISTS)) throw e;
      });
      return statTimeMs((await zk.setData(path, Buffer.alloc(0), -1)).mtime);
    }
  };
  const before = time.now();
  const mono = time.monotonic();
  const zkMs = await write();
  const after = time.now();
  const rttMs = time.monotonic() - mono;
  const skewMs = Math.round((before + after) / 2 - zkMs);
  if (Math.abs(skewMs) > maxClockSkewMs + rttMs / 2) {
    throw new VestaError(
      'CLOCK_OUT_OF_SYNC',
      `this host's clock is ${skewMs} ms ${skewMs > 0 ? 'ahead of' : 'behind'} ZooKeeper's; more than the ${maxClockSkewMs} ms allowed`,
      { details: { skewMs, maxClockSkewMs } },
    );
  }
  const zkAtMono = zkMs + rttMs / 2;
  return { at: () => zkAtMono + (time.monotonic() - mono) };
}
