import { describe, expect, it } from 'vitest';
import { windowedRounds } from './LeaseProvider.js';
import type { ConnectAnswer, LeaseEraState, WindowQuery } from './LeaseStore.js';
import { planLeaseClaim, type ClaimSnapshot } from './planLeaseClaim.js';
import type { IdRecord } from './planLeaseClaim.js';

const RECLAIM_MS = 1000;

/** A snapshot of ids 0-4: `records` are the used, not live ids; `live` are used too. */
function snapshot(
  over: Partial<Omit<ClaimSnapshot, 'records'>> & { records?: readonly IdRecord[] } = {},
): ClaimSnapshot {
  const records = new Map((over.records ?? []).map((r) => [r.machineId, r]));
  const live = over.live ?? new Set<number>();
  return {
    range: { min: 0, max: 4 },
    skip: new Set(),
    ownId: undefined,
    ownerWaitOver: false,
    reclaimAfterMs: RECLAIM_MS,
    ...over,
    live,
    used: over.used ?? new Set([...live, ...records.keys()]),
    records,
  };
}
const dead = (machineId: number, idleMs: number, owner: string | null = 'gone'): IdRecord => ({
  machineId,
  owner,
  idleMs,
});
/** The candidates, as `[machineId, kind]`. */
const ids = (s: ClaimSnapshot): [number, string][] => {
  const plan = planLeaseClaim(s, () => 0);
  if (plan.action !== 'try') throw new Error(`no candidates: ${plan.action}`);
  return plan.candidates.map((c) => [c.machineId, c.kind]);
};

describe('planLeaseClaim', () => {
  it('takes only the key’s own id when nobody holds it live, and carries its record over', () => {
    const own = dead(3, 10, 'me');
    const plan = planLeaseClaim(snapshot({ ownId: 3, records: [own] }));
    expect(plan).toEqual({
      action: 'try',
      gaveUp: undefined,
      candidates: [{ machineId: 3, kind: 'reused', record: own }],
    });
  });

  it('waits for the key’s previous session while its id is live and the owner wait runs', () => {
    expect(planLeaseClaim(snapshot({ ownId: 3, live: new Set([3]) }))).toEqual({
      action: 'waitForOwner',
      machineId: 3,
    });
  });

  it('gives up the key’s own id once the owner wait is over, and takes another', () => {
    const plan = planLeaseClaim(
      snapshot({ ownId: 0, live: new Set([0]), ownerWaitOver: true }),
      () => 0,
    );
    expect(plan).toMatchObject({ action: 'try', gaveUp: 0 });
    expect(ids(snapshot({ ownId: 0, live: new Set([0]), ownerWaitOver: true }))[0]).toEqual([
      1,
      'fresh',
    ]);
  });

  it('ignores an own id outside the range or skipped', () => {
    expect(ids(snapshot({ ownId: 7 }))[0]).toEqual([0, 'fresh']);
    expect(ids(snapshot({ ownId: 2, skip: new Set([2]) }))).not.toContainEqual([2, 'reused']);
  });

  it('tries never-used and released ids (lowest first when the random source answers 0), then dead owners’ ids past the reclaim delay, longest idle first', () => {
    const s = snapshot({
      live: new Set([0]),
      records: [dead(1, 5000), dead(2, 100, null), dead(3, 100), dead(4, 9000)],
    });
    expect(ids(s)).toEqual([
      [2, 'fresh'],
      [4, 'reclaimed'],
      [1, 'reclaimed'],
    ]);
  });

  it('tries the never-used and released ids in the order drawn from its random source', () => {
    const draws = [0.99, 0.5, 0];
    let n = 0;
    const plan = planLeaseClaim(snapshot({ records: [dead(4, 9000)] }), () => draws[n++] ?? 0);
    if (plan.action !== 'try') throw new Error('no candidates');
    expect(plan.candidates.map((c) => [c.machineId, c.kind])).toEqual([
      [3, 'fresh'],
      [2, 'fresh'],
      [1, 'fresh'],
      [0, 'fresh'],
      [4, 'reclaimed'],
    ]);
  });

  it('reclaims nothing idle for exactly the reclaim delay', () => {
    const s = snapshot({ live: new Set([0, 1, 2, 3]), records: [dead(4, RECLAIM_MS)] });
    expect(ids(s)).toEqual([]);
  });

  it('has no candidate when every id is live or used within the reclaim delay', () => {
    expect(
      ids(snapshot({ live: new Set([0, 1, 2]), records: [dead(3, 10), dead(4, 20)] })),
    ).toEqual([]);
  });

  it('skips used ids whose record could not be read (a mark is never guessed)', () => {
    const s = snapshot({ used: new Set([0, 1, 2, 3, 4]), records: [dead(4, 5000)] });
    expect(ids(s)).toEqual([[4, 'reclaimed']]);
  });
});

describe('windowedRounds', () => {
  type Row = { machineId: number; live: boolean; owner: string | null; at: number };
  type Win = (typeof W)[number];
  const W = [{ ids: new Set([0, 1]) }, { ids: new Set([2, 3]) }];
  const unused = () => Promise.reject(new Error('not used'));
  /** Ids 0-3, the window `windows[0]` picked (0-1); `rows` the store's records; `calls` the reads. */
  function windowed(rows: Row[], stableKey = true, windows: Win[] = [W[0] as Win]) {
    const calls: string[] = [];
    const of = (ids: readonly number[]) => rows.filter((r) => ids.includes(r.machineId));
    /** What connecting read: the window asked for along, the key's index entry, the window's rows. */
    const answers: ConnectAnswer<LeaseEraState, Row>[] = [];
    const along: (WindowQuery<Win> | undefined)[] = [];
    const rounds = windowedRounds<LeaseEraState, never, Row, Win>(
      {
        era: { readEra: unused, createEra: unused, openEra: unused },
        windows: {
          windows,
          read: async ({ window, ids }) => {
            if (ids === undefined) return (calls.push('all'), rows);
            if (window === undefined) return (calls.push(`ids ${ids.join()}`), of(ids));
            calls.push(`window ${[...window.ids].join()}+${ids.join()}`);
            return of([...window.ids, ...ids]);
          },
          names: (r) => r.owner === 'me',
          newestFirst: (a, b) => b.at - a.at,
          claim: unused,
        },
        connect: async (q) => (along.push(q), answers.shift()),
      },
      { stableKey, request: { range: { min: 0, max: 3 }, genMethod: 0, type: 0 } },
    );
    /** Connects, reading the key's index entry and (`ahead`) the first window's rows. */
    const connected = (indexed: number | undefined, ahead?: Row[]) => {
      answers.push({ era: ahead && open, indexed, rows: ahead ?? [] });
      return rounds.connect();
    };
    const round = (indexedEra: boolean) =>
      rounds.readRound(state, { ...open, indexed: indexedEra });
    return { rounds, connected, round, calls, along };
  }
  const row = (machineId: number, owner: string | null, live = false, at = 0): Row => ({
    machineId,
    live,
    owner,
    at,
  });
  const open = { era: 'e', open: true };
  const state = { skip: new Set<number>(), ownerWaitOver: false };

  it("reads the key's indexed id with the window (beside a read made ahead), leaving out every id but its own and the window's fresh ones", async () => {
    const { connected, round: read, calls } = windowed([row(3, 'me')]);
    await connected(3);
    const round = await read(true);
    await connected(3, []);
    const ahead = await read(true);
    expect(calls).toEqual(['window 0,1+3', 'ids 3']);
    expect([round.ownId, round.reads, [...(round.skip ?? [])]]).toEqual([3, 1, [2]]);
    expect([ahead.ownId, ahead.reads]).toEqual([3, 2]);
  });

  it('ignores an index entry out of the range or whose record names another key', async () => {
    const { connected, round } = windowed([row(3, 'other')]);
    await connected(9);
    expect((await round(true)).ownId).toBeUndefined();
    await connected(3);
    expect((await round(true)).ownId).toBeUndefined();
  });

  it('reads every id once the window has no fresh id, the skip set as given', async () => {
    const { round: read, calls } = windowed([row(0, 'a', true), row(1, 'b'), row(2, null)]);
    const round = await read(true);
    expect(calls).toEqual(['window 0,1+', 'all']);
    expect([[...round.rows].length, round.reads, round.skip]).toEqual([3, 2, state.skip]);
  });

  it("scans every record once for the key's newest id in an era not indexed", async () => {
    const { round, calls } = windowed([row(2, 'me', false, 1), row(3, 'me', false, 2)]);
    expect((await round(false)).ownId).toBe(3);
    expect((await round(false)).ownId).toBe(3);
    expect(calls).toEqual(['window 0,1+', 'all', 'window 0,1+3']);
    const unkeyed = windowed([row(3, 'me')], false);
    await unkeyed.connected(undefined);
    expect(unkeyed.along[0]?.ids).toEqual([]);
  });

  it('serves a read made ahead to the next round alone', async () => {
    const windows = [W[1] as Win];
    const { connected, round, calls } = windowed([], true, windows);
    await connected(undefined, [row(2, 'x')]);
    windows[0] = W[0] as Win;
    expect([...((await round(true)).skip ?? [])]).toEqual([0, 1, 2]);
    expect([...((await round(true)).skip ?? [])]).toEqual([2, 3]);
    expect(calls).toEqual(['window 0,1+']);
  });
});
