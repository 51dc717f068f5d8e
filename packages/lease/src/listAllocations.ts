import type { LeaseAllocation } from './LeaseAllocation.js';

/**
 * An admin's listing from the ids its store names (as stored: strings or numbers; anything not
 * a whole number is passed over): each read at once, the ones gone meanwhile (`undefined`)
 * left out, the rest in id order.
 */
export async function listAllocations<A extends LeaseAllocation>(
  ids: Iterable<string | number>,
  read: (machineId: number) => Promise<A | undefined>,
): Promise<A[]> {
  const machineIds = [...ids].map(Number).filter(Number.isInteger);
  const rows = await Promise.all(machineIds.map(read));
  return rows
    .filter((row): row is Awaited<A> => row !== undefined)
    .sort((a, b) => a.machineId - b.machineId);
}
