import { ManualTimeSource } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { VestaError } from '@vesta/core';
import { silentLogger } from '@vesta/core';
import { LeaseClaimer, type LeaseClaimant } from './LeaseClaimer.js';
import { snapshotOfRows, type ClaimRow } from './snapshotOfRows.js';

const RANGE = { min: 0, max: 3 };

function claimer(time = new ManualTimeSource(), extra: { maxClockWaitMs?: number } = {}) {
  return new LeaseClaimer({
    options: {
      key: 'k',
      stateDir: undefined,
      time,
      clock: time.now,
      logger: silentLogger,
      fenceAfterMs: 400,
      reclaimAfterMs: 1000,
      ownerWaitMs: 500,
      maxClockSkewMs: 100,
      maxClockWaitMs: extra.maxClockWaitMs ?? 1000,
    },
    files: 'memory',
    coordinator: 'Memory',
    address: 'here',
    root: '/fleet',
    random: () => 0,
  });
}

const claimantOf = (c: LeaseClaimer): LeaseClaimant =>
  c.claimant({ range: RANGE, genMethod: 0, type: 1 });

/** A round over `rows`, claiming what `wins` says. */
function round(rows: ClaimRow[], wins: (id: number) => boolean, ownId?: number) {
  return async (state: { skip: ReadonlySet<number>; ownerWaitOver: boolean }) => ({
    snapshot: snapshotOfRows(rows, { ...state, range: RANGE, reclaimAfterMs: 1000, ownId }),
    take: async (candidate: { machineId: number }) =>
      wins(candidate.machineId) ? candidate.machineId : undefined,
  });
}

const codeOf = async (p: Promise<unknown>): Promise<string | undefined> =>
  p.then(
    () => undefined,
    (e: unknown) => (VestaError.is(e) ? e.code : 'other'),
  );

describe('LeaseClaimer', () => {
  it('takes the lowest free id, then the next when a concurrent start wins it, counting what it took', async () => {
    const c = claimer();
    const got = await c.claim(
      claimantOf(c),
      10,
      round([{ machineId: 0, live: true, owner: 'x', idleMs: 0 }], (id) => id !== 1),
    );
    expect(got).toBe(2);
    expect(c.stats).toMatchObject({ fresh: 1, reused: 0, reclaimed: 0 });
  });

  it('waits for its key’s previous holder up to ownerWaitMs, then takes another id', async () => {
    const time = new ManualTimeSource();
    const c = claimer(time);
    const rows = [{ machineId: 1, live: true, owner: 'k', idleMs: 0 }];
    let rounds = 0;
    const claiming = c.claim(claimantOf(c), 100, async (state) => {
      rounds++;
      return round(rows, () => true, 1)(state);
    });
    await time.advanceUntil(() => rounds > 5, 'the owner wait');
    const got = await claiming;
    expect(got).toBe(0);
    expect(rounds).toBeGreaterThan(5);
  });

  it('refuses with MACHINE_ID_EXHAUSTED when every id is live, and counts the refusal', async () => {
    const c = claimer();
    const live = [0, 1, 2, 3].map((machineId) => ({
      machineId,
      live: true,
      owner: 'x',
      idleMs: 0,
    }));
    const error = await c
      .claim(
        claimantOf(c),
        10,
        round(live, () => true),
      )
      .catch((e: unknown) => e);
    expect(VestaError.is(error, 'MACHINE_ID_EXHAUSTED')).toBe(true);
    expect(c.failure(error)).toBe(error);
    expect(c.stats.refused).toBe(1);
  });

  it('gives up with MACHINE_ID_EXHAUSTED after losing every race for 50 rounds', async () => {
    const c = claimer();
    expect(
      await codeOf(
        c.claim(
          claimantOf(c),
          10,
          round([], () => false),
        ),
      ),
    ).toBe('MACHINE_ID_EXHAUSTED');
  });

  it('reads again after three lost races, and refuses MACHINE_ID_EXHAUSTED on the first read that shows no free id', async () => {
    const c = claimer();
    const taken = new Set<number>();
    let reads = 0;
    const error = await c
      .claim(claimantOf(c), 10, async (state) => {
        reads++;
        const rows = [...taken].map((machineId) => ({
          machineId,
          live: true,
          owner: 'x',
          idleMs: 0,
        }));
        const snapshot = snapshotOfRows(rows, {
          ...state,
          range: RANGE,
          reclaimAfterMs: 1000,
          ownId: undefined,
        });
        // Concurrent starts took the whole range since this round read it.
        for (let id = RANGE.min; id <= RANGE.max; id++) taken.add(id);
        return { snapshot, take: async () => undefined };
      })
      .catch((e: unknown) => e);
    expect(VestaError.is(error, 'MACHINE_ID_EXHAUSTED')).toBe(true);
    expect(reads).toBe(2);
    expect(c.roundTrips).toBe(2 + 3);
  });

  it('spreads the free ids it tries, so that starts reading at once rarely try the same', async () => {
    const tried: number[] = [];
    let n = 0;
    const randoms = [0.99, 0.5, 0];
    const c = new LeaseClaimer({
      options: {
        key: 'k',
        stateDir: undefined,
        time: new ManualTimeSource(),
        clock: () => 0,
        logger: silentLogger,
        fenceAfterMs: 400,
        reclaimAfterMs: 1000,
        ownerWaitMs: 500,
        maxClockSkewMs: 100,
        maxClockWaitMs: 1000,
      },
      files: 'memory',
      coordinator: 'Memory',
      address: 'here',
      root: '/fleet',
      random: () => randoms[n++ % randoms.length] ?? 0,
    });
    const got = await c.claim(
      claimantOf(c),
      10,
      round([], (id) => {
        tried.push(id);
        return tried.length === 2;
      }),
    );
    expect(tried).toEqual([3, 2]);
    expect(got).toBe(2);
  });

  it('turns a failure that is not its own into the coordinator’s unavailable error', () => {
    const error = claimer().failure(new Error('ECONNRESET'));
    expect(error.code).toBe('COORDINATOR_UNAVAILABLE');
    expect(error.message).toContain('Memory at here');
  });

  it('publishes the first mark fenceAfterMs past the stored one, and releases a lease the clock cannot reach', async () => {
    const time = new ManualTimeSource();
    const c = claimer(time, { maxClockWaitMs: 50 });
    let published = 0;
    let released = false;
    const take = (floorMarkMs: number) =>
      c.takeWithFence({
        machineId: 1,
        floorMarkMs,
        type: 1,
        write: async (markMs) => {
          published = markMs;
          return true;
        },
        lease: (_w, opening) => ({
          opening,
          release: async () => {
            released = true;
          },
        }),
      });
    const near = await take(time.now() - 10);
    expect(near?.opening.notBeforeMs).toBe(time.now() - 9);
    expect(published).toBe(time.now() + 400);
    expect(near?.opening.fence.fenced).toBe(false);
    expect(await codeOf(take(time.now() + 1000))).toBe('CLOCK_BEHIND_HIGH_WATER_MARK');
    expect(released).toBe(true);
    expect(published).toBe(time.now() + 1001 + 400);
  });

  it('refuses a start from the cache when the fallback is off, naming the cause', async () => {
    const c = claimer();
    let closed = false;
    const error = await c
      .startFromCache(
        claimantOf(c),
        new Error('ETIMEDOUT'),
        () => (closed = true),
        () => 'lease',
      )
      .catch((e: unknown) => e as VestaError);
    expect(closed).toBe(true);
    expect(VestaError.is(error, 'COORDINATOR_UNAVAILABLE')).toBe(true);
    expect(String(error)).toMatch(/ETIMEDOUT.*fallbackToCache is off/);
  });

  it('refuses a clock further from the coordinator’s than maxClockSkewMs (CLOCK_OUT_OF_SYNC)', async () => {
    const time = new ManualTimeSource();
    const c = claimer(time);
    const clock = await c.checkClock(async () => time.now() - 50);
    expect(clock.at()).toBe(time.now() - 50);
    expect(await codeOf(c.checkClock(async () => time.now() + 500))).toBe('CLOCK_OUT_OF_SYNC');
  });
});
