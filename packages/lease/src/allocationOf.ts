import type { LeaseAllocation } from './LeaseAllocation.js';

/** What an admin reads of an id's record (none: an unreadable or missing one). */
export interface AllocationRecord {
  readonly owner?: string | null;
  readonly markMs?: number;
  readonly host?: string | null | undefined;
  readonly pid?: number | null | undefined;
}

/**
 * One id's allocation row from its record and what the admin read beside it: `alive`, `ageMs` (0
 * unless given) and the fields a store adds (a session, a reclaim lease), which follow `alive` in
 * the row as `vesta machine-ids list --json` prints it. A record field missing or null reads as
 * no owner, mark 0, no host or pid.
 */
export function allocationOf<X extends object>(
  machineId: number,
  record: AllocationRecord | undefined,
  read: { readonly alive: boolean; readonly ageMs?: number } & X,
): LeaseAllocation & Omit<X, 'alive' | 'ageMs'> {
  const { alive, ageMs = 0, ...added } = read;
  return {
    machineId,
    owner: record?.owner ?? null,
    alive,
    ...added,
    markMs: record?.markMs ?? 0,
    ageMs,
    host: record?.host ?? undefined,
    pid: record?.pid ?? undefined,
  };
}
