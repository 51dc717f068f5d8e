import type { MachineIdRange } from '@vesta/core';

/** What a claim needs of an id's record: its owner (null: released), idle on the store's clock. */
export interface IdRecord {
  readonly machineId: number;
  readonly owner: string | null;
  readonly idleMs: number;
}

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
export type ClaimPlan =
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
  /** Its mark, where the round's store hands rows to the engine (windowed). */
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
      records.set(machineId, { machineId, owner: row.owner, idleMs });
    }
  }
  return { ...q, live, used, records };
}

/** A part of the range a store reads in one request (etcd: a span of its key order). */
export interface IdWindow {
  readonly ids: ReadonlySet<number>;
}

/** A window, and ids read with it. */
export interface WindowQuery<W extends IdWindow> {
  readonly window: W;
  readonly ids: readonly number[];
}

/** A store's data verbs for a round read a window at a time (etcd). */
export interface WindowVerbs<R extends ClaimRow, W extends IdWindow> {
  readonly windows: readonly W[];
  readWindow(q: WindowQuery<W>): Promise<readonly R[]>;
  readIds(ids: readonly number[]): Promise<readonly R[]>;
  readAll(): Promise<readonly R[]>;
  /** Whether the record names this start's key. */
  names(row: R): boolean;
  /** Orders two records naming the key, the newest first. */
  newestFirst(a: R, b: R): number;
}

/**
 * The rounds of a start whose store reads a window at a time: the key's own id, else the window's
 * fresh ids (every other id left out), else every id read (a dead owner's only once none is fresh).
 */
export class WindowedClaim<R extends ClaimRow, W extends IdWindow> {
  #indexed: number | undefined;
  /** The key's id as a scan of every record found it (an era not indexed), once scanned. */
  #scanned: { readonly ownId: number | undefined } | undefined;
  #ahead: (WindowQuery<W> & { readonly rows: readonly R[] }) | undefined;

  constructor(
    private readonly claimant: { readonly stableKey: boolean; readonly range: MachineIdRange },
    private readonly verbs: WindowVerbs<R, W>,
  ) {}

  /** Takes the key's id as the store's index names it (a hint: the record decides). */
  indexedAs(id: number | undefined): void {
    const { min, max } = this.claimant.range;
    this.#indexed = id !== undefined && id >= min && id <= max ? id : undefined;
  }

  get #own(): number | undefined {
    return this.claimant.stableKey ? (this.#scanned?.ownId ?? this.#indexed) : undefined;
  }

  /** A window at random (starts spread over the range), with the key's own id when outside it. */
  query(): WindowQuery<W> {
    const { windows } = this.verbs;
    const [window, own] = [windows[Math.floor(Math.random() * windows.length)] as W, this.#own];
    return { window, ids: own !== undefined && !window.ids.has(own) ? [own] : [] };
  }

  /** A read made with another request (the era's): the next round's. */
  readAhead(read: WindowQuery<W> & { readonly rows: readonly R[] }): void {
    this.#ahead = read;
  }

  /**
   * Reads a round (the read made ahead, else a window's). `eraIndexed`: every record of the era
   * has an index entry (no scan finds more).
   */
  async round(
    { skip, ownerWaitOver }: Pick<ClaimSnapshot, 'skip' | 'ownerWaitOver'>,
    eraIndexed: boolean,
  ) {
    const { verbs } = this;
    const { range, stableKey } = this.claimant;
    const own = this.#own;
    const q = this.#ahead ?? this.query();
    let rows = this.#ahead?.rows ?? (await verbs.readWindow(q));
    this.#ahead = undefined;
    let reads = 1;
    if (own !== undefined && !q.window.ids.has(own) && !q.ids.includes(own)) {
      reads++;
      rows = [...rows, ...(await verbs.readIds([own]))];
    }
    let byId = new Map(rows.map((r) => [r.machineId, r]));
    const names = (r: R | undefined) => r !== undefined && verbs.names(r);
    const ownRow = own === undefined ? undefined : byId.get(own);
    let ownId = names(ownRow) ? own : undefined;
    const scan = stableKey && ownId === undefined && !eraIndexed && this.#scanned === undefined;
    const ownDecides = ownId !== undefined && !skip.has(ownId) && (!ownRow?.live || !ownerWaitOver);
    const fresh = [...q.window.ids].filter((id) => {
      const r = byId.get(id);
      return !skip.has(id) && (r === undefined || (!r.live && r.owner === null));
    });
    if (scan || (!ownDecides && fresh.length === 0)) {
      reads++;
      rows = await verbs.readAll();
      byId = new Map(rows.map((r) => [r.machineId, r]));
      if (scan) {
        const inRange = rows.filter((r) => r.machineId >= range.min && r.machineId <= range.max);
        ownId = inRange.filter(names).sort((a, b) => verbs.newestFirst(a, b))[0]?.machineId;
        this.#scanned = { ownId };
      } else if (!names(byId.get(ownId ?? -1))) ownId = undefined;
      return { rows, ownId, skip, reads };
    }
    const left = new Set(skip);
    for (let id = range.min; id <= range.max; id++) {
      if (id !== ownId && !fresh.includes(id)) left.add(id);
    }
    return { rows, ownId, skip: left, reads };
  }
}
