import type { MachineIdRange } from '@vesta/core';
import { reclaimOrder, type IdRecord } from './reclaimOrder.js';

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

/** One id to try, in order. */
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
 * Puts `items` in a random order drawn from `random` (values in [0, 1)), in place: each place
 * takes one of the items not yet placed. A `random` that always answers 0 keeps the order.
 */
function spread<T>(items: T[], random: () => number): T[] {
  for (let i = 0; i < items.length - 1; i++) {
    const j = i + Math.floor(random() * (items.length - i));
    const item = items[j] as T;
    items[j] = items[i] as T;
    items[i] = item;
  }
  return items;
}

/**
 * Which ids a start tries, in order: the id its key held before (waiting for the key's previous
 * session to go, up to the owner wait); else the never-used or released ids in a random order;
 * else dead owners' ids past the reclaim delay (see {@link reclaimOrder}). An empty list means
 * every id is live or used within the reclaim delay. Losing the race for the key's own id ends
 * the round.
 *
 * Why random: starts that read the same snapshot at once would all try the same lowest id, so the
 * k-th winner would lose k - 1 races first and a fleet's start-up would cost round trips in the
 * square of its size. Spread over the free ids, two starts rarely try the same one. `random` is
 * injected so tests can fix the order (`() => 0` keeps it lowest first).
 */
export function planLeaseClaim(s: ClaimSnapshot, random: () => number = Math.random): ClaimPlan {
  const own = s.ownId;
  let gaveUp: number | undefined;
  if (own !== undefined && own >= s.range.min && own <= s.range.max && !s.skip.has(own)) {
    if (!s.live.has(own)) {
      return {
        action: 'try',
        gaveUp,
        candidates: [{ machineId: own, kind: 'reused', record: s.records.get(own) }],
      };
    }
    if (!s.ownerWaitOver) return { action: 'waitForOwner', machineId: own };
    gaveUp = own;
  }
  const open = (id: number): boolean => !s.live.has(id) && !s.skip.has(id) && id !== gaveUp;
  const fresh: ClaimCandidate[] = [];
  for (let id = s.range.min; id <= s.range.max; id++) {
    if (!open(id)) continue;
    const record = s.records.get(id);
    if (!s.used.has(id)) fresh.push({ machineId: id, kind: 'fresh', record: undefined });
    else if (record?.owner === null) fresh.push({ machineId: id, kind: 'fresh', record });
  }
  const candidates = spread(fresh, random);
  const tried = new Set(candidates.map((c) => c.machineId));
  const dead = [...s.records.values()].filter(
    (r) => open(r.machineId) && s.used.has(r.machineId) && !tried.has(r.machineId),
  );
  for (const record of reclaimOrder(dead, s.reclaimAfterMs)) {
    candidates.push({ machineId: record.machineId, kind: 'reclaimed', record });
  }
  return { action: 'try', gaveUp, candidates };
}
