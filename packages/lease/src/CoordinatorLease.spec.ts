import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualTimeSource } from '@vesta/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { VestaError } from '@vesta/core';
import type { Logger } from '@vesta/core';
import { CoordinatorLease, type CoordinatorLeaseStart } from './LeaseProvider.js';
import { LeaseCache } from './LeaseCache.js';
import { LeaseFence } from './LeaseFence.js';
import type { HoldVerbs, LeaseEraState } from './LeaseStore.js';
import type { LeaseJournal, LeaseJournalEntry } from './LeaseJournal.js';
import { abandonLease } from './testing.js';

const REFRESH_MS = 100;
const FENCE_MS = 400;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** An in-memory coordinator record of id 7: its era, owner key, holder instance, mark, version. */
interface Store {
  era: string;
  owner: string | null;
  holder: string | null;
  markMs: number;
  version: number;
  reachable: boolean;
  disconnects: number;
}

/** The store's verbs on the in-memory record: each write compares the era and the version. */
function memoryVerbs(store: Store): HoldVerbs<number> {
  const write = async (era: LeaseEraState, version: number, fields: Partial<Store>) => {
    if (!store.reachable) throw new Error('unreachable');
    if (era.era !== store.era || version !== store.version) return 'conflict' as const;
    Object.assign(store, fields);
    return ++store.version;
  };
  return {
    renew: (era, h, version, retake) =>
      write(era, version, {
        markMs: h.markMs,
        ...(retake && { owner: h.owner, holder: h.instance }),
      }),
    read: async () => {
      if (!store.reachable) throw new Error('unreachable');
      const { owner, holder: instance, markMs, version } = store;
      return {
        era: { era: store.era, open: true },
        record: { owner, instance, markMs, live: false, version },
      };
    },
    release: async (era, h, version) =>
      (await write(era, version, { markMs: h.markMs, owner: null, holder: null })) !== 'conflict',
    close: () => {
      store.disconnects++;
    },
  };
}

/** The in-memory verbs with some replaced (`over` gets the store and the plain verbs). */
function verbsWith(
  over: (store: Store, plain: HoldVerbs<number>) => Partial<HoldVerbs<number>>,
): (store: Store) => HoldVerbs<number> {
  return (store) => {
    const plain = memoryVerbs(store);
    return { ...plain, ...over(store, plain) };
  };
}

/** Another holder took id 7 (`key` null: released by hand). */
const moveTo = (store: Store, key: string | null): void => {
  Object.assign(store, { owner: key, holder: key === null ? null : 'i-2' });
  store.version++;
};

/** A line the lease logged. */
interface Line {
  readonly level: 'info' | 'warn' | 'error';
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

/** A logger that keeps its lines. */
function recordingLogger(lines: Line[]): Logger {
  const at =
    (level: Line['level']) =>
    (fields: Record<string, unknown>, message: string): void => {
      lines.push({ level, fields, message });
    };
  return { info: at('info'), warn: at('warn'), error: at('error') };
}

function lease(
  opts: {
    confirmed?: boolean;
    cache?: LeaseCache;
    journal?: LeaseJournal;
    verbs?: (store: Store) => HoldVerbs<number>;
  } = {},
) {
  const lines: Line[] = [];
  const time = new ManualTimeSource();
  const fence = new LeaseFence(time, FENCE_MS);
  const confirmed = opts.confirmed ?? true;
  if (confirmed) fence.confirm(fence.markToPublish(), fence.sendTime());
  else fence.holdUntil(time.now() + 10 * FENCE_MS);
  // Started from the cache: the record is the one an earlier start of the key left.
  const store: Store = {
    era: 'era-1',
    owner: 'k',
    holder: confirmed ? 'i-1' : 'i-0',
    markMs: 0,
    version: 0,
    reachable: true,
    disconnects: 0,
  };
  const start: CoordinatorLeaseStart = {
    coordinator: 'Memory',
    options: {
      time,
      clock: time.now,
      logger: recordingLogger(lines),
      refreshIntervalMs: REFRESH_MS,
    },
    cache: opts.cache,
    root: '/fleet',
    machineId: 7,
    claimant: {
      key: 'k',
      stableKey: true,
      instance: 'i-1',
      request: { range: { min: 0, max: 15 }, genMethod: 0, type: 1 },
    },
    era: 'era-1',
    notBeforeMs: 0,
    floorMarkMs: 0,
    claimed: confirmed ? { era: { era: 'era-1', open: true }, version: 0 } : undefined,
    fence,
    ...(opts.journal === undefined ? {} : { journal: opts.journal }),
  };
  const l = new CoordinatorLease(start, (opts.verbs ?? memoryVerbs)(store));
  return { l, store, time, lines };
}

/** An event a test waits for, or holds a hold's answer back with. */
function gate(): { readonly passed: Promise<void>; open(): void } {
  let open: () => void = () => undefined;
  const passed = new Promise<void>((resolve) => (open = resolve));
  return { passed, open: () => open() };
}

const code = (f: () => void): string | undefined => {
  try {
    f();
    return undefined;
  } catch (error) {
    return VestaError.is(error) ? error.code : 'other';
  }
};

describe('CoordinatorLease', () => {
  it('renews every refresh interval, publishing the mark fenceAfterMs ahead, and stays valid', async () => {
    const { l, store, time } = lease();
    await time.advance(REFRESH_MS * 5);
    expect(l.stats.renewals).toBe(5);
    expect(store.markMs).toBe(time.now() + FENCE_MS);
    expect(code(() => l.assertValid())).toBeUndefined();
  });

  it('confirms a kept turn with the mark it last published, which then stands no further', async () => {
    // With a keep-alive: kept while the mark stands longer than half the fence and two turns.
    const { l, store, time } = lease({ verbs: verbsWith(() => ({ keepAlive: async () => true })) });
    await time.advance(REFRESH_MS);
    // The claim's mark stood for 300 ms: kept, nothing written.
    expect(l.stats.renewals).toBe(1);
    expect(store.markMs).toBe(0);
    await time.advance(REFRESH_MS);
    expect(store.markMs).toBe(time.now() + FENCE_MS);
    const written = store.markMs;
    await time.advance(REFRESH_MS * 2);
    expect(store.markMs).toBe(written + 2 * REFRESH_MS);
    expect(l.stats.renewals).toBe(4);
    expect(l.valid).toBe(true);
    // Kept turns alone never carry the lease past the mark last published.
    const keeping = lease({
      verbs: verbsWith(() => ({
        keepAlive: async () => true,
        renew: async () => {
          throw new Error('writes fail');
        },
      })),
    });
    const markMs = keeping.time.now() + FENCE_MS;
    await keeping.time.advance(FENCE_MS - REFRESH_MS);
    expect(keeping.l.valid).toBe(true);
    await keeping.time.advance(REFRESH_MS);
    expect(keeping.time.now()).toBe(markMs);
    expect(keeping.l.valid).toBe(false);
  });

  it('writes its mark in the same turn when the keep-alive finds a store-side lease gone', async () => {
    const { l, store, time } = lease({
      verbs: verbsWith(() => ({ keepAlive: async () => false })),
    });
    await time.advance(REFRESH_MS);
    expect(store.markMs).toBe(time.now() + FENCE_MS);
    expect(l.stats.renewals).toBe(1);
  });

  it('pauses issuing once no renewal landed within fenceAfterMs, and resumes on the next one', async () => {
    const { l, store, time } = lease();
    store.reachable = false;
    await time.advance(FENCE_MS + REFRESH_MS);
    expect(l.valid).toBe(false);
    expect(code(() => l.assertValid())).toBe('MACHINE_ID_LEASE_LOST');
    expect(l.stats.missedRenewals).toBeGreaterThan(0);
    store.reachable = true;
    await time.advance(REFRESH_MS);
    expect(l.valid).toBe(true);
    expect(l.lost).toBe(false);
  });

  it('stops for good when the id moved to another holder, and publishes no final mark', async () => {
    const { l, store, time } = lease();
    moveTo(store, 'k-2');
    await time.advance(REFRESH_MS);
    expect(l.lost).toBe(true);
    expect(code(() => l.assertValid())).toBe('MACHINE_ID_LEASE_LOST');
    const markBefore = store.markMs;
    await l.release();
    expect(store.markMs).toBe(markBefore);
    expect(store.disconnects).toBe(1);
  });

  it('publishes the final mark at release (just past the last id told) and caches it for the key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vesta-lease-'));
    dirs.push(dir);
    const cache = new LeaseCache(dir, 'memory', '/fleet');
    const { l, store, time } = lease({ cache });
    await time.advance(REFRESH_MS);
    l.onHighWaterMark(time.now() + 5);
    await l.release();
    expect(store.holder).toBeNull();
    expect(store.markMs).toBe(time.now() + 5);
    expect(cache.read()).toMatchObject({
      key: 'k',
      machineId: 7,
      markMs: time.now() + 5,
      era: 'era-1',
    });
    await l.release(); // twice is once
    expect(store.disconnects).toBe(1);
  });

  it('released while a renewal is in flight, waits for its answer and publishes the final mark', async () => {
    const answer = gate();
    const { l, store, time } = lease({
      verbs: verbsWith((_, plain) => ({
        renew: async (era, h, version, retake) => {
          const written = await plain.renew(era, h, version, retake);
          await answer.passed;
          return written;
        },
      })),
    });
    // The renewal's write lands; its answer is still on the way when the release starts (whose
    // write compares the version that answer brings).
    await time.advance(REFRESH_MS);
    expect(store.version).toBe(1);
    const released = l.release();
    answer.open();
    await released;
    expect(store.holder).toBeNull();
    expect(store.disconnects).toBe(1);
  });

  it('started from the cache, publishes no final mark before the coordinator confirmed it', async () => {
    const unconfirmed = lease({ confirmed: false });
    unconfirmed.store.holder = 'i-1';
    await unconfirmed.l.release();
    expect(unconfirmed.store).toMatchObject({ holder: 'i-1', markMs: 0 });

    const { l, store, time } = lease({ confirmed: false });
    await time.advance(REFRESH_MS);
    expect(store.holder).toBe('i-1');
    expect(l.stats.renewals).toBe(1);
    expect(l.valid).toBe(true);
    await l.release();
    expect(store.holder).toBeNull();
  });

  it('started from the cache, journals its claimed entry from its start once confirmed, again at the next renewal when that append failed', async () => {
    const entries: LeaseJournalEntry[] = [];
    let failures = 1;
    const journal: LeaseJournal = {
      append: async (entry) => {
        if (failures-- > 0) throw new Error('the store dropped the append');
        entries.push(entry);
      },
    };
    const { l, time } = lease({ confirmed: false, journal });
    const startedAtMs = time.now();
    await time.advance(REFRESH_MS); // confirmed: the late claimed append fails
    await time.advance(REFRESH_MS); // the next renewal appends it
    await l.release();
    expect(entries.map((e) => [e.event, e.instance])).toEqual([
      ['claimed', 'i-1'],
      ['released', 'i-1'],
    ]);
    expect(entries[0]?.atMs).toBe(startedAtMs);
  });

  it('started from the cache, journals its claimed entry while it still holds the id, never after giving it up', async () => {
    // Appended after the release, a newcomer's claim could come first, and this entry would
    // close the newcomer's tenure at this start's floor mark.
    const seen: [string, string | null][] = [];
    let failures = 1;
    const at: { store?: Store } = {};
    const journal: LeaseJournal = {
      append: async (entry) => {
        if (failures-- > 0) throw new Error('the store dropped the append');
        seen.push([entry.event, at.store?.holder ?? null]);
      },
    };
    const started = lease({ confirmed: false, journal });
    at.store = started.store;
    await started.time.advance(REFRESH_MS); // confirmed: the late claimed append fails
    await started.l.release();
    expect(seen).toEqual([
      ['claimed', 'i-1'],
      ['released', null],
    ]);
  });

  it('abandons as a crash would: no final mark, renewals stop, issuing refused', async () => {
    const { l, store, time } = lease();
    await time.advance(REFRESH_MS);
    const mark = store.markMs;
    abandonLease(l);
    await time.advance(REFRESH_MS * 3);
    expect(store.markMs).toBe(mark);
    expect(store.holder).toBe('i-1');
    expect(code(() => l.assertValid())).toBe('MACHINE_ID_LEASE_LOST');
    expect(() => abandonLease({})).toThrow(TypeError);
  });

  it('closes the connection at once when the id is lost, with closeOnLoss', async () => {
    const { l, store, time } = lease({ verbs: verbsWith(() => ({ closeOnLoss: true })) });
    moveTo(store, 'k-2');
    await time.advance(REFRESH_MS);
    expect(l.lost).toBe(true);
    expect(store.disconnects).toBe(1);
  });

  it('keeps the connection until the release when the id is lost, without closeOnLoss', async () => {
    const { l, store, time } = lease();
    moveTo(store, 'k-2');
    await time.advance(REFRESH_MS);
    expect(l.lost).toBe(true);
    expect(store.disconnects).toBe(0);
    await l.release();
    expect(store.disconnects).toBe(1);
  });

  it('logs no failed turn of the quiet code, and logs a failed turn of another code', async () => {
    const failures = [new VestaError('COORDINATOR_UNAVAILABLE', 'down'), new Error('boom')];
    const { time, lines } = lease({
      verbs: verbsWith(() => ({
        renew: async () => {
          throw failures.shift() ?? new Error('no failure left');
        },
        quiet: 'COORDINATOR_UNAVAILABLE',
      })),
    });
    await time.advance(REFRESH_MS);
    expect(lines).toEqual([]);
    await time.advance(REFRESH_MS);
    expect(lines).toEqual([
      {
        level: 'warn',
        fields: { machineId: 7, error: 'Error: boom' },
        message: 'could not renew the machine id lease',
      },
    ]);
  });

  it('reconnects after a failed turn, not after a missed or a confirmed one', async () => {
    const counts = { reconnects: 0 };
    let next: 'missed' | 'confirmed' | 'fails' = 'missed';
    const { l, time } = lease({
      verbs: verbsWith((_, plain) => ({
        renew: async (era, h, version, retake) => {
          if (next === 'fails') throw new Error('timed out');
          return plain.renew(era, h, version, retake);
        },
        // A write that does not count (too few replicas have it) misses its turn.
        counts: async () => next === 'confirmed',
        reconnect: () => {
          counts.reconnects++;
        },
      })),
    });
    await time.advance(REFRESH_MS);
    next = 'confirmed';
    await time.advance(REFRESH_MS);
    expect(l.stats).toMatchObject({ renewals: 1, missedRenewals: 1 });
    expect(counts.reconnects).toBe(0);
    next = 'fails';
    await time.advance(REFRESH_MS);
    expect(counts.reconnects).toBe(1);
  });

  it("journals to the hold's own journal rather than the start's", async () => {
    const fromStart: LeaseJournalEntry[] = [];
    const fromHold: LeaseJournalEntry[] = [];
    const into = (entries: LeaseJournalEntry[]): LeaseJournal => ({
      append: async (entry) => {
        entries.push(entry);
      },
    });
    // Started from the cache: the late claimed entry and the release's both go to the hold's.
    const { l, time } = lease({
      confirmed: false,
      journal: into(fromStart),
      verbs: verbsWith(() => ({ journal: into(fromHold) })),
    });
    await time.advance(REFRESH_MS);
    await l.release();
    expect(fromHold.map((e) => e.event)).toEqual(['claimed', 'released']);
    expect(fromStart).toEqual([]);
  });

  it.each<[string, boolean, (store: Store) => void, string, Record<string, unknown>]>([
    [
      'the era is gone',
      true,
      (store) => (store.era = 'era-2'),
      'Memory lost its data (the allocation era it was leased under is gone)',
      { owner: null },
    ],
    [
      'the id moved to k-2',
      true,
      (store) => moveTo(store, 'k-2'),
      'now owned by k-2',
      { owner: 'k-2' },
    ],
    [
      'the id was released by hand',
      true,
      (store) => moveTo(store, null),
      'now released',
      { owner: null },
    ],
    [
      'the cached id is held by another key',
      false,
      (store) => (store.owner = 'k-3'),
      'the cached id was taken by another holder meanwhile, or the store lost its data',
      {},
    ],
  ])(
    'stops for good when %s, with the reason in its error and log line',
    async (_, confirmed, change, why, details) => {
      const { l, store, time, lines } = lease({ confirmed });
      change(store);
      await time.advance(REFRESH_MS);
      const message = `machine id 7 is no longer held by this instance (k): ${why}. Issuing stopped for good: restart to get a new id`;
      let thrown: unknown;
      try {
        l.assertValid();
      } catch (error) {
        thrown = error;
      }
      expect(
        VestaError.is(thrown) ? [thrown.code, thrown.message, thrown.details] : thrown,
      ).toEqual(['MACHINE_ID_LEASE_LOST', message, { machineId: 7, ...details }]);
      expect(lines).toEqual([
        { level: 'error', fields: { machineId: 7, key: 'k', ...details }, message },
      ]);
    },
  );

  it('counts a missed turn as missed and confirms nothing, even when the hold took its mark', async () => {
    const counts = { reconnects: 0 };
    const { l, store, time, lines } = lease({
      verbs: verbsWith(() => ({
        counts: async () => false, // written, but too few replicas have it
        reconnect: () => {
          counts.reconnects++;
        },
      })),
    });
    await time.advance(FENCE_MS + REFRESH_MS);
    expect(l.stats).toMatchObject({
      renewals: 0,
      missedRenewals: 5,
      confirmedAgeMs: FENCE_MS + REFRESH_MS,
      fenced: true,
    });
    expect(store.markMs).toBe(time.now() + FENCE_MS);
    expect(counts.reconnects).toBe(0);
    expect(lines.map((line) => line.message)).toEqual([
      'machine id lease not confirmed by Memory in time: issuing is paused',
    ]);
  });

  it('abandoned while a turn is in flight, ignores its answer and sends nothing more', async () => {
    const inFlight = gate();
    const answer = gate();
    const counted = { calls: 0 };
    const { l, store, time } = lease({
      verbs: verbsWith((_, plain) => ({
        renew: async (era, h, version, retake) => {
          const written = await plain.renew(era, h, version, retake);
          inFlight.open();
          await answer.passed; // its write landed, answered after the lease was abandoned
          return written;
        },
        counts: async () => {
          counted.calls++;
          return true;
        },
      })),
    });
    await time.advance(REFRESH_MS);
    await inFlight.passed;
    abandonLease(l);
    answer.open();
    await time.advance(REFRESH_MS);
    expect(store.version).toBe(1);
    expect(counted.calls).toBe(0);
    expect(l.stats.renewals).toBe(0);
    expect(code(() => l.assertValid())).toBe('MACHINE_ID_LEASE_LOST');
    expect(store.disconnects).toBe(1);
  });
});
