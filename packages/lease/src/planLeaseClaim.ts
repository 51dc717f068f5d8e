import type { MachineIdRange } from '@vesta/core';

/** What a claim needs of a readable record: its owner (null: released), idle on the store's clock. */
export type IdRecord = Pick<ClaimRow, 'machineId' | 'markMs'> & {
  readonly owner: string | null;
  readonly idleMs: number;
};

/** What one claim round saw: `used` ids have a record, `skip` ones were given up by this start. */
export interface ClaimSnapshot {
  readonly range: MachineIdRange;
  readonly live: ReadonlySet<number>;
  readonly used: ReadonlySet<number>;
  readonly skip: ReadonlySet<number>;
  /** The id whose record names this key. */
  readonly ownId: number | undefined;
  readonly ownerWaitOver: boolean;
  /** The readable records of the used, not live, not skipped ids in the range. */
  readonly records: ReadonlyMap<number, IdRecord>;
  readonly reclaimAfterMs: number;
}

export interface ClaimCandidate {
  readonly machineId: number;
  readonly kind: 'reused' | 'fresh' | 'reclaimed';
  readonly record: IdRecord | undefined;
}

/** Wait for the key's previous session, or try the candidates in order (`gaveUp`: the own id). */
type ClaimPlan =
  | { readonly action: 'waitForOwner'; readonly machineId: number }
  | {
      readonly action: 'try';
      readonly gaveUp: number | undefined;
      readonly candidates: readonly ClaimCandidate[];
    };

/**
 * Dead owners' ids idle longer than `reclaimAfterMs`, the longest idle first (the carried-over
 * mark keeps a reclaim safe; the delay keeps ids stable for owners that come back).
 */
export function reclaimOrder(records: Iterable<IdRecord>, reclaimAfterMs: number): IdRecord[] {
  return [...records].filter((r) => r.idleMs > reclaimAfterMs).sort((a, b) => b.idleMs - a.idleMs);
}

/**
 * The key's own id (waiting for its previous session up to the owner wait); else the free ids in
 * a random order (starts reading one snapshot rarely race); else dead owners' ids.
 */
export function planLeaseClaim(s: ClaimSnapshot, random: () => number = Math.random): ClaimPlan {
  const own = s.ownId;
  let gaveUp: number | undefined;
  if (own !== undefined && own >= s.range.min && own <= s.range.max && !s.skip.has(own)) {
    if (!s.live.has(own)) {
      const candidates = [{ machineId: own, kind: 'reused' as const, record: s.records.get(own) }];
      return { action: 'try', gaveUp, candidates };
    }
    if (!s.ownerWaitOver) return { action: 'waitForOwner', machineId: own };
    gaveUp = own;
  }
  const open = (id: number): boolean => !s.live.has(id) && !s.skip.has(id) && id !== gaveUp;
  const candidates: ClaimCandidate[] = [];
  for (let id = s.range.min; id <= s.range.max; id++) {
    if (!open(id)) continue;
    const record = s.records.get(id);
    if (!s.used.has(id)) candidates.push({ machineId: id, kind: 'fresh', record: undefined });
    else if (record?.owner === null) candidates.push({ machineId: id, kind: 'fresh', record });
  }
  // Shuffled in place (`() => 0` keeps the order).
  for (let i = 0; i < candidates.length - 1; i++) {
    const j = i + Math.floor(random() * (candidates.length - i));
    const picked = candidates[j] as ClaimCandidate;
    candidates[j] = candidates[i] as ClaimCandidate;
    candidates[i] = picked;
  }
  const tried = new Set(candidates.map((c) => c.machineId));
  const dead = [...s.records.values()].filter(
    (r) => open(r.machineId) && s.used.has(r.machineId) && !tried.has(r.machineId),
  );
  for (const record of reclaimOrder(dead, s.reclaimAfterMs)) {
    candidates.push({ machineId: record.machineId, kind: 'reclaimed', record });
  }
  return { action: 'try', gaveUp, candidates };
}

/**
 * One used id as a store read it: `owner` undefined when unreadable; without `idleMs` (etcd tells
 * no ages), `recent`: written within the reclaim delay.
 */
export interface ClaimRow {
  readonly machineId: number;
  readonly live: boolean;
  readonly owner: string | null | undefined;
  readonly idleMs?: number;
  readonly recent?: boolean;
  /** The mark a claim of the id starts past. @default 0 */
  readonly markMs?: number | undefined;
}

/** The snapshot of the used ids a store read (an unreadable record's mark is never guessed). */
export function snapshotOfRows(
  rows: Iterable<ClaimRow>,
  q: Omit<ClaimSnapshot, 'live' | 'used' | 'records'>,
): ClaimSnapshot {
  const live = new Set<number>();
  const used = new Set<number>();
  const records = new Map<number, IdRecord>();
  for (const row of rows) {
    const { machineId } = row;
    if (machineId < q.range.min || machineId > q.range.max) continue;
    used.add(machineId);
    if (row.live) live.add(machineId);
    else if (!q.skip.has(machineId) && row.owner !== undefined) {
      const idleMs = row.idleMs ?? (row.recent === true ? 0 : q.reclaimAfterMs + 1);
      records.set(machineId, { machineId, owner: row.owner, idleMs, markMs: row.markMs });
    }
  }
  return { ...q, live, used, records };
}
