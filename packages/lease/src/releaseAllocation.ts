import { VestaError } from '@vesta/core';
import type { LeaseAllocation } from './LeaseAllocation.js';

/**
 * What one attempt at releasing an id did in the store: `released`; `raced` (it changed since it
 * was read: read again); `live` (a holder appeared meanwhile); `missing` (it went meanwhile).
 */
export type ReleaseOutcome = 'released' | 'raced' | 'live' | 'missing';

/** One id as an admin's store read it for a release: the allocation and how to release it. */
export interface ReleasableAllocation<A extends LeaseAllocation> {
  readonly allocation: A;
  /**
   * Clears the owner (its time mark stays, so whoever takes the id next issues after it), drops
   * the key mapping and any live holder, provided the id is still as it was read.
   */
  release(): Promise<ReleaseOutcome>;
}

/** How often a release reads again when a live holder's renewal raced it. */
const RELEASE_ATTEMPTS = 5;

/**
 * The operators' release rule every coordinator's admin follows: an id no one holds is released
 * at once; a live one only with `force`, and its holder stops for good once a renewal of its own
 * finds the record moved (its next writing turn: an etcd holder's turns between only keep its
 * leases alive, up to about half the fence plus a turn); it issues no id above the mark it
 * published meanwhile, and whoever takes the id next issues above that mark. The
 * admin gives only its store access: `read` (`undefined` when the id is not allocated,
 * `'unreadable'` when the store holds data this tool cannot read) and the release of what it
 * read. Errors: INVALID_ARGUMENT (not an id from 0 to 1023, data this tool cannot read, live
 * without `force`, still racing after a few attempts), NOT_FOUND (not allocated `where`, e.g.
 * "under /vesta").
 */
export async function releaseAllocation<A extends LeaseAllocation>(
  machineId: number,
  options: { readonly force?: boolean },
  where: string,
  read: (machineId: number) => Promise<ReleasableAllocation<A> | 'unreadable' | undefined>,
): Promise<A> {
  if (!Number.isInteger(machineId) || machineId < 0 || machineId > 1023) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `machine id must be a whole number from 0 to 1023, got ${String(machineId)}`,
    );
  }
  const notFound = (): VestaError =>
    new VestaError('NOT_FOUND', `machine id ${machineId} is not allocated ${where}`);
  const live = (owner: string | null): VestaError =>
    new VestaError(
      'INVALID_ARGUMENT',
      `machine id ${machineId} is held by a live instance (${owner ?? 'unknown'}); use --force to take it away`,
    );
  for (let attempt = 0; attempt < RELEASE_ATTEMPTS; attempt++) {
    const found = await read(machineId);
    if (found === undefined) throw notFound();
    if (found === 'unreadable') {
      throw new VestaError(
        'INVALID_ARGUMENT',
        `machine id ${machineId} holds data this tool cannot read; refusing to touch it`,
      );
    }
    const { allocation } = found;
    if (allocation.alive && options.force !== true) throw live(allocation.owner);
    const outcome = await found.release();
    if (outcome === 'released') return { ...allocation, ageMs: 0 };
    if (outcome === 'live') throw live(allocation.owner);
    if (outcome === 'missing') throw notFound();
  }
  throw new VestaError(
    'INVALID_ARGUMENT',
    `machine id ${machineId} changed while being released; try again`,
  );
}
