import type { MachineIdRange } from '@vesta/core';

/** What a claim needs to know of an id's record in the coordinator. */
export interface IdRecord {
  readonly machineId: number;
  /** The owning key; null once released. */
  readonly owner: string | null;
  /** How long the record's mark has not been raised, on the coordinator's clock. */
  readonly idleMs: number;
}

/** What one claim round saw in the coordinator. */
export interface ClaimSnapshot {
  readonly range: MachineIdRange;
  /** Ids with a live holder. */
  readonly live: ReadonlySet<number>;
  /** Ids with a record (held, dead or released). */
  readonly used: ReadonlySet<number>;
  /** Ids this start gave up on (its own id, held too long by an earlier session). */
  readonly skip: ReadonlySet<number>;
  /** The id this key held before, when its record still names this key. */
  readonly ownId: number | undefined;
  /** Whether the wait for this key's previous session to go is over. */
  readonly ownerWaitOver: boolean;
  /** The readable records of the used, not live, not skipped ids in the range. */
  readonly records: ReadonlyMap<number, IdRecord>;
  readonly reclaimAfterMs: number;
}

/** How an id is taken: the key's own, a never-used or released one, a dead owner's. */
export type ClaimKind = 'reused' | 'fresh' | 'reclaimed';

export interface ClaimCandidate {
  readonly machineId: number;
  readonly kind: ClaimKind;
  /** Its record, when it has one (its mark is carried over). */
  readonly record: IdRecord | undefined;
}

/** What a round does: wait for the key's previous session, or try the candidates in order. */
export type ClaimPlan =
  | { readonly action: 'waitForOwner'; readonly machineId: number }
  | {
      readonly action: 'try';
      /** The key's own id, given up this round: its previous session is still live. */
      readonly gaveUp: number | undefined;
      readonly candidates: readonly ClaimCandidate[];
    };

/**
 * The reclaim rule: an id nobody holds live may be taken over once its mark was last raised more
 * than `reclaimAfterMs` ago on the coordinator's clock; the longest idle first. The carried-over
 * mark keeps it safe; the delay keeps ids stable for owners that come back.
 */
export function reclaimOrder(records: Iterable<IdRecord>, reclaimAfterMs: number): IdRecord[] {
  return [...records].filter((r) => r.idleMs > reclaimAfterMs).sort((a, b) => b.idleMs - a.idleMs);
}

/**
 * Which ids a start tries, in order: its key's previous id (waiting for the key's previous
 * session up to the owner wait); else the free ids in a random order (so that starts reading the
 * same snapshot rarely race for one id); else dead owners' ids ({@link reclaimOrder}). An empty
 * list: every id is live or used within the reclaim delay.
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
  // Shuffled in place: each place takes one of the items not yet placed (`() => 0` keeps the order).
  for (let i = 0; i < candidates.length - 1; i++) {
    const j = i + Math.floor(random() * (candidates.length - i));
    [candidates[i], candidates[j]] = [
      candidates[j] as ClaimCandidate,
      candidates[i] as ClaimCandidate,
    ];
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

/** One used id as a coordinator read it. */
export interface ClaimRow {
  readonly machineId: number;
  /** Held now (a live key, node or unexpired lease). */
  readonly live: boolean;
  /** The key its record names (null: released); undefined when unread or unreadable. */
  readonly owner: string | null | undefined;
  /** Ms since its holder last wrote it (the coordinator's clock). */
  readonly idleMs?: number;
  /**
   * Without `idleMs` (etcd tells no ages): whether its owner wrote it within the reclaim delay.
   * @default false
   */
  readonly recent?: boolean;
}

/** What a round adds to the rows: the range, its state so far, and the key's own id. */
export type ClaimRowsQuery = Pick<
  ClaimSnapshot,
  'range' | 'skip' | 'ownerWaitOver' | 'reclaimAfterMs' | 'ownId'
>;

/**
 * The snapshot of the used ids a coordinator read: the records of those neither live nor
 * skipped, except one that could not be read (its mark is never guessed).
 */
export function snapshotOfRows(rows: Iterable<ClaimRow>, q: ClaimRowsQuery): ClaimSnapshot {
  const live = new Set<number>();
  const used = new Set<number>();
  const records = new Map<number, IdRecord>();
  for (const row of rows) {
    const { machineId } = row;
    if (machineId < q.range.min || machineId > q.range.max) continue;
    used.add(machineId);
    if (row.live) live.add(machineId);
    // The owner read only here: a store may decode it on demand.
    else if (!q.skip.has(machineId) && row.owner !== undefined) {
      const idleMs = row.idleMs ?? (row.recent === true ? 0 : q.reclaimAfterMs + 1);
      records.set(machineId, { machineId, owner: row.owner, idleMs });
    }
  }
  const { range, skip, ownerWaitOver, reclaimAfterMs, ownId } = q;
  return { range, live, used, skip, ownId, ownerWaitOver, records, reclaimAfterMs };
}
