/** What a claim needs to know of an id's record in the coordinator. */
export interface IdRecord {
  readonly machineId: number;
  /** The owning key; null once released (by hand, or by a keyless instance closing). */
  readonly owner: string | null;
  /** How long the record's mark has not been raised, on the coordinator's clock. */
  readonly idleMs: number;
}

/**
 * The reclaim rule: an id nobody holds live may be taken over once its mark was last raised more
 * than `reclaimAfterMs` ago on the coordinator's clock; the longest idle first. Safety comes from
 * the carried-over mark (the new holder issues nothing before it); the delay, well above the
 * fencing bound and the session timeout, keeps ids stable for owners that come back.
 */
export function reclaimOrder(records: Iterable<IdRecord>, reclaimAfterMs: number): IdRecord[] {
  return [...records].filter((r) => r.idleMs > reclaimAfterMs).sort((a, b) => b.idleMs - a.idleMs);
}
