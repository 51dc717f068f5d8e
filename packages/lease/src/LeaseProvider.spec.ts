import { silentLogger, VestaError } from '@vesta/core';
import { ManualTimeSource } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { LeaseProvider, type LeaseProviderOptions } from './LeaseProvider.js';
import type { ClaimRoundState, CoordinatorClock, LeaseEraState, LeaseStore } from './LeaseStore.js';
import type { ClaimRow } from './planLeaseClaim.js';

const RANGE = { min: 0, max: 3 };
const REQUEST = { range: RANGE, genMethod: 0, type: 1 };

/** What the in-memory store does; each verb records its calls. */
interface MemoryStoreSpec {
  /** The used ids each round reads. @default none */
  rows?: (round: number) => ClaimRow[];
  /** Whether a claim of `id` wins. @default every claim wins */
  wins?: (id: number) => boolean;
  /** The id the key held last. */
  ownId?: number;
  /** Connecting fails with this. */
  unreachable?: Error;
  /** The coordinator's clock; none: no clock check. */
  readClock?: () => Promise<number>;
  /** A round's read fails with this. */
  readFails?: Error;
  startsFromCache?: boolean;
}

/** A lease store in memory: the seam's data verbs and nothing else (the policy is the provider's). */
function memoryStore(spec: MemoryStoreSpec = {}) {
  const seen = {
    reads: 0,
    tried: [] as number[],
    published: [] as number[],
    released: 0,
    closed: 0,
    clocks: [] as (CoordinatorClock | undefined)[],
  };
  const era = { era: 'e1', open: true };
  const store: LeaseStore<LeaseEraState, true> = {
    coordinator: 'Memory',
    files: 'memory',
    address: 'here',
    root: '/fleet',
    eraLogFields: {},
    pollMs: 100,
    startsFromCache: spec.startsFromCache ?? false,
    open: () => ({
      connect: async () => {
        if (spec.unreachable !== undefined) throw spec.unreachable;
      },
      ...(spec.readClock === undefined ? {} : { readClock: spec.readClock }),
      era: { readEra: async () => era, createEra: async () => false, openEra: async () => {} },
      journal: { append: async () => {} },
      readRound: async (state: ClaimRoundState, _era, clock) => {
        if (spec.readFails !== undefined) throw spec.readFails;
        seen.clocks.push(clock);
        const rows = spec.rows?.(seen.reads) ?? [];
        seen.reads++;
        return {
          rows,
          ownId: spec.ownId,
          write: async ({ machineId }, markMs) => {
            seen.tried.push(machineId);
            if (!(spec.wins?.(machineId) ?? true)) return undefined;
            seen.published.push(markMs);
            return true;
          },
        };
      },
      hold: () => ({
        renew: async () => true,
        read: async () => ({ era, record: undefined }),
        release: async () => {
          seen.released++;
          return true;
        },
        close: () => undefined,
      }),
      close: () => {
        seen.closed++;
      },
    }),
  };
  return { store, seen };
}

function provider(
  store: LeaseStore<LeaseEraState, true>,
  time = new ManualTimeSource(),
  extra: Partial<LeaseProviderOptions> = {},
) {
  return new LeaseProvider(store, {
    key: 'k',
    stateDir: undefined,
    time,
    clock: time.now,
    logger: silentLogger,
    fenceAfterMs: 400,
    reclaimAfterMs: 1000,
    ownerWaitMs: 500,
    maxClockSkewMs: 100,
    maxClockWaitMs: 1000,
    eraWaitMs: 1000,
    refreshIntervalMs: 100,
    random: () => 0,
    ...extra,
  });
}

/** Id `machineId` released, its mark stored. */
const released = (machineId: number, markMs: number): ClaimRow => ({
  machineId,
  live: false,
  owner: null,
  idleMs: 0,
  markMs,
});
const live = (machineId: number, owner = 'x'): ClaimRow => ({
  machineId,
  live: true,
  owner,
  idleMs: 0,
});

const codeOf = async (p: Promise<unknown>): Promise<string | undefined> =>
  p.then(
    () => undefined,
    (e: unknown) => (VestaError.is(e) ? e.code : 'other'),
  );

describe('LeaseProvider (the lease engine over a store’s data verbs)', () => {
  it('takes the lowest free id, then the next when a concurrent start wins it, counting what it took', async () => {
    const { store, seen } = memoryStore({ rows: () => [live(0)], wins: (id) => id !== 1 });
    const p = provider(store);
    const lease = await p.acquire(REQUEST);
    expect(lease.machineId).toBe(2);
    expect(seen.tried).toEqual([1, 2]);
    expect(p.stats).toMatchObject({ fresh: 1, reused: 0, reclaimed: 0 });
    await lease.release();
  });

  it('waits for its key’s previous holder up to ownerWaitMs, then takes another id', async () => {
    const time = new ManualTimeSource();
    const { store, seen } = memoryStore({ rows: () => [live(1, 'k')], ownId: 1 });
    const acquiring = provider(store, time).acquire(REQUEST);
    await time.advanceUntil(() => seen.reads > 5, 'the owner wait');
    const lease = await acquiring;
    expect(lease.machineId).toBe(0);
    expect(seen.reads).toBeGreaterThan(5);
    await lease.release();
  });

  it('refuses with MACHINE_ID_EXHAUSTED when every id is live, counts the refusal and closes the session', async () => {
    const { store, seen } = memoryStore({ rows: () => [0, 1, 2, 3].map((id) => live(id)) });
    const p = provider(store);
    expect(await codeOf(p.acquire(REQUEST))).toBe('MACHINE_ID_EXHAUSTED');
    expect(p.stats.refused).toBe(1);
    expect(seen.closed).toBe(1);
  });

  it('gives up with MACHINE_ID_EXHAUSTED after losing every race for 50 rounds', async () => {
    const { store, seen } = memoryStore({ wins: () => false });
    expect(await codeOf(provider(store).acquire(REQUEST))).toBe('MACHINE_ID_EXHAUSTED');
    expect(seen.reads).toBe(50);
  });

  it('reads again after three lost races, and refuses MACHINE_ID_EXHAUSTED on the first read that shows no free id', async () => {
    // Concurrent starts take the whole range right after the first read.
    const { store, seen } = memoryStore({
      rows: (round) => (round === 0 ? [] : [0, 1, 2, 3].map((id) => live(id))),
      wins: () => false,
    });
    const p = provider(store);
    expect(await codeOf(p.acquire(REQUEST))).toBe('MACHINE_ID_EXHAUSTED');
    expect(seen.reads).toBe(2);
    expect(p.roundTrips).toBe(2 + 3);
  });

  it('spreads the free ids it tries, so that starts reading at once rarely try the same', async () => {
    const randoms = [0.99, 0.5, 0];
    let n = 0;
    const { store, seen } = memoryStore({ wins: () => seen.tried.length === 2 });
    const lease = await provider(store, new ManualTimeSource(), {
      random: () => randoms[n++ % randoms.length] ?? 0,
    }).acquire(REQUEST);
    expect(seen.tried).toEqual([3, 2]);
    expect(lease.machineId).toBe(2);
    await lease.release();
  });

  it('turns a failure that is not its own into the coordinator’s unavailable error, naming where', async () => {
    const { store, seen } = memoryStore({ readFails: new Error('ECONNRESET') });
    const error = (await provider(store)
      .acquire(REQUEST)
      .catch((e: unknown) => e)) as VestaError;
    expect(error.code).toBe('COORDINATOR_UNAVAILABLE');
    expect(error.message).toMatch(/Memory at here.*ECONNRESET/);
    expect(seen.closed).toBe(1);
  });

  it('publishes the first mark fenceAfterMs past the stored one, and releases a lease the clock cannot reach', async () => {
    const time = new ManualTimeSource();
    const near = memoryStore({ rows: () => [released(0, time.now() - 10)] });
    const lease = await provider(near.store, time, { maxClockWaitMs: 50 }).acquire(REQUEST);
    expect(lease.notBeforeMs).toBe(time.now() - 9);
    expect(near.seen.published).toEqual([time.now() + 400]);
    expect(lease.valid).toBe(true);
    await lease.release();

    const far = memoryStore({ rows: () => [released(0, time.now() + 1000)] });
    expect(await codeOf(provider(far.store, time, { maxClockWaitMs: 50 }).acquire(REQUEST))).toBe(
      'CLOCK_BEHIND_HIGH_WATER_MARK',
    );
    expect(far.seen.published).toEqual([time.now() + 1001 + 400]);
    expect(far.seen.released).toBe(1);
  });

  it('refuses a start from the cache when the fallback is off, naming the cause', async () => {
    const { store, seen } = memoryStore({
      unreachable: new Error('ETIMEDOUT'),
      startsFromCache: true,
    });
    const error = await provider(store, new ManualTimeSource(), { fallbackToCache: false })
      .acquire(REQUEST)
      .catch((e: unknown) => e as VestaError);
    expect(seen.closed).toBe(1);
    expect(VestaError.is(error, 'COORDINATOR_UNAVAILABLE')).toBe(true);
    expect(String(error)).toMatch(/ETIMEDOUT.*fallbackToCache is off/);
  });

  it('checks the clock once connected and hands the coordinator’s to each round; CLOCK_OUT_OF_SYNC beyond maxClockSkewMs', async () => {
    const time = new ManualTimeSource();
    const behind = memoryStore({ readClock: async () => time.now() - 50 });
    const lease = await provider(behind.store, time).acquire(REQUEST);
    expect(behind.seen.clocks[0]?.at()).toBe(time.now() - 50);
    await lease.release();

    const ahead = memoryStore({ readClock: async () => time.now() + 500 });
    expect(await codeOf(provider(ahead.store, time).acquire(REQUEST))).toBe('CLOCK_OUT_OF_SYNC');
    expect(ahead.seen.reads).toBe(0);
    expect(ahead.seen.closed).toBe(1);
  });

  it('calls readClock on its session, as a method of a class reads `this`', async () => {
    const time = new ManualTimeSource();
    const { store } = memoryStore();
    class ClockOf {
      readonly offsetMs = -20;
      async readClock(): Promise<number> {
        return time.now() + this.offsetMs;
      }
    }
    const clockOf = new ClockOf();
    const withClass: typeof store = {
      ...store,
      open: (c) => {
        const session = store.open(c);
        return Object.assign(Object.create(clockOf) as ClockOf, session);
      },
    };
    const lease = await provider(withClass, time).acquire(REQUEST);
    expect(lease.machineId).toBe(0);
    await lease.release();
  });

  it('never starts on the cache when the clock read fails after connecting', async () => {
    const { store, seen } = memoryStore({
      readClock: () => Promise.reject(new Error('ECONNRESET')),
      startsFromCache: true,
    });
    const p = provider(store, new ManualTimeSource(), { fallbackToCache: true });
    expect(await codeOf(p.acquire(REQUEST))).toBe('COORDINATOR_UNAVAILABLE');
    expect(p.stats.fromCache).toBe(0);
    expect(seen.closed).toBe(1);
  });
});

describe('LeaseProvider over a windowed store', () => {
  const W = [{ ids: new Set([0, 1, 2, 3]) }];
  /** A store whose rounds read a window: connecting reads the era and the window with it. */
  function windowedStore(initial: LeaseEraState | undefined) {
    const calls: string[] = [];
    let era = initial;
    const store: LeaseStore<LeaseEraState, true> = {
      ...memoryStore().store,
      open: () => ({
        connect: async (along) => {
          calls.push(`connect ${along === undefined ? '' : [...along.window.ids].join()}`);
          return { era, indexed: 2, rows: [live(0)] };
        },
        era: {
          readEra: async () => (calls.push('readEra'), era),
          // Creating answers the era after; opening it reads the next round's window along.
          createEra: async (token) => {
            calls.push('createEra');
            era = { era: token, open: false, indexed: true };
            return { created: true, after: era };
          },
          openEra: async (found, along) => {
            calls.push(`openEra ${along === undefined ? '' : [...along.window.ids].join()}`);
            era = { ...found, open: true };
            return { era, also: { rows: [live(0), live(1)] } };
          },
        },
        journal: { append: async () => {} },
        windows: {
          windows: W,
          read: async (q) => {
            calls.push(q.window ? 'readWindow' : q.ids ? 'readIds' : 'readAll');
            return [];
          },
          names: () => false,
          newestFirst: () => 0,
          claim: async (_, { machineId }, row) => (
            calls.push(`claim ${machineId} ${row?.owner}`),
            true
          ),
        },
        hold: () => ({
          renew: async () => true,
          read: async () => ({ era, record: undefined }),
          release: async () => true,
          close: () => undefined,
        }),
        close: () => undefined,
      }),
    };
    return { store, calls };
  }

  it('drives the rounds, the read made on connecting serving the first one (era and window)', async () => {
    const { store, calls } = windowedStore({ era: 'e1', open: true, indexed: true });
    const p = provider(store);
    const lease = await p.acquire(REQUEST);
    expect(calls).toEqual(['connect 0,1,2,3', 'claim 1 undefined']);
    expect(lease.machineId).toBe(1);
    expect(p.roundTrips).toBe(2);
    await lease.release();
  });

  it('serves the first round from the read made along with opening a new era, the era read again only after the wait', async () => {
    const time = new ManualTimeSource();
    const { store, calls } = windowedStore(undefined);
    const p = provider(store, time);
    const acquiring = p.acquire(REQUEST);
    await time.advanceUntil(() => calls.length > 4, 'the era wait');
    const lease = await acquiring;
    expect(calls).toEqual([
      'connect 0,1,2,3',
      'createEra',
      'readEra',
      'openEra 0,1,2,3',
      'claim 2 undefined',
    ]);
    expect(p.roundTrips).toBe(2);
    await lease.release();
  });
});
