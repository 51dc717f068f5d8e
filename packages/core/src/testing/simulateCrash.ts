import type { HostLock } from '../identity/acquireHostLock.js';
import type { IdService } from '../service/IdService.js';

/**
 * For tests: leaves a service as a crash of its process would: it issues nothing more, its
 * host lock is free, and nothing it wrote is lowered or cleaned up (no close()).
 */
export async function simulateCrash(service: IdService): Promise<void> {
  const internals = service as unknown as { closed: boolean; hostLock?: HostLock };
  internals.closed = true;
  await internals.hostLock?.release();
}
