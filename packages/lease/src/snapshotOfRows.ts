import type { MachineIdRange } from '@vesta/core';
import type { ClaimSnapshot } from './planLeaseClaim.js';
import type { IdRecord } from './reclaimOrder.js';

/** One used id as a coordinator read it. */
export interface ClaimRow {
  readonly machineId: number;
  /** Held now (a live key, node or unexpired lease). */
  readonly live: boolean;
  /** The key its record names (null: released); undefined when unread or unreadable. */
  readonly owner: string | null | undefined;
  /** Ms since its holder last wrote it (the coordinator's clock). */
  readonly idleMs: number;
}

/** What a round adds to the rows: the range, its state so far, and the key's own id. */
export interface ClaimRowsQuery {
  readonly range: MachineIdRange;
  readonly skip: ReadonlySet<number>;
  readonly ownerWaitOver: boolean;
  readonly reclaimAfterMs: number;
  /** The id the key held last, when its record still names the key. */
  readonly ownId: number | undefined;
}

/**
 * The planner's snapshot (see planLeaseClaim) of the used ids a coordinator read: live and used
 * ids of the range, and the readable records of those neither live nor skipped (a record that
 * could not be read is left out: its mark is never guessed).
 */
export function snapshotOfRows(rows: Iterable<ClaimRow>, q: ClaimRowsQuery): ClaimSnapshot {
  const live = new Set<number>();
  const used = new Set<number>();
  const records = new Map<number, IdRecord>();
  for (const r of rows) {
    if (r.machineId < q.range.min || r.machineId > q.range.max) continue;
    used.add(r.machineId);
    if (r.live) live.add(r.machineId);
    else if (!q.skip.has(r.machineId) && r.owner !== undefined) {
      records.set(r.machineId, { machineId: r.machineId, owner: r.owner, idleMs: r.idleMs });
    }
  }
  const { range, skip, ownerWaitOver, reclaimAfterMs, ownId } = q;
  return { range, live, used, skip, ownId, ownerWaitOver, records, reclaimAfterMs };
}
