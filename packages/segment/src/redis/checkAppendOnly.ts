import { VestaError } from '@vesta/core';
import type { Redis } from 'ioredis';

/**
 * Refuses a Redis that keeps no append-only file (`INFO persistence` says `aof_enabled:0`): a
 * crash or a restart of it forgets the ranges claimed since its last snapshot (every key, without
 * snapshots), and the next claims would hand them out again. COORDINATOR_UNAVAILABLE,
 * saying how to run it; a failed INFO is the caller's to turn into its error.
 */
export async function checkAppendOnly(redis: Redis, where: string): Promise<void> {
  const info = await redis.info('persistence');
  if (/^aof_enabled:1\r?$/m.test(info)) return;
  throw new VestaError(
    'COORDINATOR_UNAVAILABLE',
    `Redis at ${where} keeps no append-only file (appendonly no): a crash or a restart would forget the segments claimed and hand their numbers out again. Run it with appendonly yes and appendfsync always, or give the segment store requireAppendOnly: false to accept that risk`,
    { details: { coordinator: 'redis', host: where } },
  );
}
