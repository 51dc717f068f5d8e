import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualTimeSource } from '@vesta/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { VestaError } from '@vesta/core';
import type { Logger } from '@vesta/core';
import { abandonLease, CoordinatorLease, type CoordinatorLeaseStart } from './LeaseProvider.js';
import { LeaseCache } from './LeaseCache.js';
import { LeaseFence } from './LeaseFence.js';
import type { HoldLoss, HoldRenewal, HoldTurn, LeaseHold } from './LeaseStore.js';
import type { LeaseJournal, LeaseJournalEntry } from './LeaseJournal.js';

const REFRESH_MS = 100;
const FENCE_MS = 400;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** An in-memory coordinator record: who holds id 7, and its mark. */
interface Store {
  holder: string | null;
  markMs: number;
  reachable: boolean;
  disconnects: number;
}

/** A hold on the in-memory record, as instance `i-1`. */
function memoryHold(store: Store): LeaseHold {
  return {
    renew: async (turn) => {
      if (!store.reachable) throw new Error('unreachable');
      const markMs = turn.mark();
      if (store.holder !== 'i-1') {
        if (turn.everConfirmed) return { lost: 'moved', owner: store.holder };
        store.holder = 'i-1'; // taken back after a start from the cache
      }
      store.markMs = markMs;
      return { confirmedUnder: 'era-2' };
    },
    release: async (markMs) => {
      if (store.holder !== 'i-1') return false;
      store.markMs = markMs;
      store.holder = null;
      return true;
    },
    close: () => {
      store.disconnects++;
    },
  };
}

/** What a test sees of a {@link revisionHold}: its revisions, and its renewal's answer. */
interface Revisions {
  revision: number;
  written: number;
  answer: Promise<void>;
}

/**
 * A hold whose store compares each write against the revision this holder last wrote (as etcd's
 * and PostgreSQL's do), and whose renewal's answer can be held back after its write landed.
 */
function revisionHold(store: Store, r: Revisions): LeaseHold {
  const memory = memoryHold(store);
  return {
    ...memory,
    renew: async (turn) => {
      store.markMs = turn.mark();
      r.revision++;
      await r.answer;
      r.written = r.revision;
      return 'confirmed';
    },
    release: async (markMs, state) => {
      if (r.written !== r.revision) return false;
      return memory.release(markMs, state);
    },
  };
}

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

/**
 * A hold that answers each turn with `answer` (on the in-memory record's release and close), and
 * counts its reconnects.
 */
function scriptedHold(
  answer: (turn: HoldTurn, store: Store) => Promise<HoldRenewal>,
  data: Pick<LeaseHold, 'quiet' | 'closeOnLoss' | 'journal'> = {},
  counts: { reconnects: number } = { reconnects: 0 },
): (store: Store) => LeaseHold {
  return (store) => ({
    ...memoryHold(store),
    renew: (turn) => answer(turn, store),
    reconnect: () => {
      counts.reconnects++;
    },
    ...data,
  });
}

function lease(
  opts: {
    confirmed?: boolean;
    cache?: LeaseCache;
    journal?: LeaseJournal;
    hold?: (store: Store) => LeaseHold;
  } = {},
) {
  const lines: Line[] = [];
  const time = new ManualTimeSource();
  const fence = new LeaseFence(time, FENCE_MS);
  const confirmed = opts.confirmed ?? true;
  if (confirmed) fence.confirm(fence.markToPublish(), fence.sendTime());
  else fence.holdUntil(time.now() + 10 * FENCE_MS);
  const store: Store = {
    holder: confirmed ? 'i-1' : null,
    markMs: 0,
    reachable: true,
    disconnects: 0,
  };
  const hold = (opts.hold ?? memoryHold)(store);
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
    confirmed,
    fence,
    ...(opts.journal === undefined ? {} : { journal: opts.journal }),
  };
  const l = new CoordinatorLease(start, hold);
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
    const { l, store, time } = lease({
      hold: scriptedHold(async (turn, s) => {
        // Writes once the mark stands for half the fence or less, else keeps the lease alive.
        if (turn.markStandsMs > FENCE_MS / 2) {
          turn.keep();
          return 'kept';
        }
        s.markMs = turn.mark();
        return 'confirmed';
      }),
    });
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
      hold: scriptedHold(async (turn) => {
        turn.keep();
        return 'kept';
      }),
    });
    const markMs = keeping.time.now() + FENCE_MS;
    await keeping.time.advance(FENCE_MS - REFRESH_MS);
    expect(keeping.l.valid).toBe(true);
    await keeping.time.advance(REFRESH_MS);
    expect(keeping.time.now()).toBe(markMs);
    expect(keeping.l.valid).toBe(false);
  });

  it('counts a kept turn without its keep-alive started as missed, and logs the defect', async () => {
    const { l, time, lines } = lease({ hold: scriptedHold(async () => 'kept') });
    await time.advance(REFRESH_MS);
    expect(l.stats.renewals).toBe(0);
    expect(l.stats.missedRenewals).toBe(1);
    expect(lines.some((line) => line.level === 'error')).toBe(true);
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
    store.holder = 'i-2';
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
      era: 'era-2',
    });
    await l.release(); // twice is once
    expect(store.disconnects).toBe(1);
  });

  it('released while a renewal is in flight, waits for its answer and publishes the final mark', async () => {
    let answer: () => void = () => undefined;
    const r: Revisions = {
      revision: 0,
      written: 0,
      answer: new Promise<void>((resolve) => (answer = resolve)),
    };
    const { l, store, time } = lease({ hold: (s) => revisionHold(s, r) });
    // The renewal's write lands; its answer is still on the way when the release starts.
    await time.advance(REFRESH_MS);
    expect(r.revision).toBe(1);
    const released = l.release();
    answer();
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
    const { l, store, time } = lease({ hold: (s) => ({ ...memoryHold(s), closeOnLoss: true }) });
    store.holder = 'i-2';
    await time.advance(REFRESH_MS);
    expect(l.lost).toBe(true);
    expect(store.disconnects).toBe(1);
  });

  it('keeps the connection until the release when the id is lost, without closeOnLoss', async () => {
    const { l, store, time } = lease();
    store.holder = 'i-2';
    await time.advance(REFRESH_MS);
    expect(l.lost).toBe(true);
    expect(store.disconnects).toBe(0);
    await l.release();
    expect(store.disconnects).toBe(1);
  });

  it('logs no failed turn of the quiet code, and logs a failed turn of another code', async () => {
    const failures = [new VestaError('COORDINATOR_UNAVAILABLE', 'down'), new Error('boom')];
    const { time, lines } = lease({
      hold: scriptedHold(
        async () => {
          throw failures.shift() ?? new Error('no failure left');
        },
        { quiet: 'COORDINATOR_UNAVAILABLE' },
      ),
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
      hold: scriptedHold(
        async (turn) => {
          if (next === 'fails') throw new Error('timed out');
          if (next === 'confirmed') turn.mark();
          return next;
        },
        {},
        counts,
      ),
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
      hold: (s) => ({ ...memoryHold(s), journal: into(fromHold) }),
    });
    await time.advance(REFRESH_MS);
    await l.release();
    expect(fromHold.map((e) => e.event)).toEqual(['claimed', 'released']);
    expect(fromStart).toEqual([]);
  });

  it.each<[string, HoldLoss, string, Record<string, unknown>]>([
    [
      'the era is gone',
      { lost: 'era' },
      'Memory lost its data (the allocation era it was leased under is gone)',
      { owner: null },
    ],
    ['the id moved to k-2', { lost: 'moved', owner: 'k-2' }, 'now owned by k-2', { owner: 'k-2' }],
    [
      'the id was released by hand',
      { lost: 'moved', owner: null },
      'now released',
      { owner: null },
    ],
    [
      "the store's own reason, naming an owner",
      { lost: 'other', why: 'its row names k-3', owner: 'k-3' },
      'its row names k-3',
      { owner: 'k-3' },
    ],
    [
      "the store's own reason, naming none",
      { lost: 'other', why: 'its write matched nothing' },
      'its write matched nothing',
      {},
    ],
  ])(
    'stops for good when %s, with the reason in its error and log line',
    async (_, loss, why, details) => {
      const { l, time, lines } = lease({ hold: scriptedHold(async () => loss) });
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
    const { l, time, lines } = lease({
      hold: scriptedHold(
        async (turn, s) => {
          s.markMs = turn.mark(); // written, but too few replicas have it
          return 'missed';
        },
        {},
        counts,
      ),
    });
    await time.advance(FENCE_MS + REFRESH_MS);
    expect(l.stats).toMatchObject({
      renewals: 0,
      missedRenewals: 5,
      confirmedAgeMs: FENCE_MS + REFRESH_MS,
      fenced: true,
    });
    expect(counts.reconnects).toBe(0);
    expect(lines.map((line) => line.message)).toEqual([
      'machine id lease not confirmed by Memory in time: issuing is paused',
    ]);
  });

  it.each<[string, HoldRenewal]>([
    ["'confirmed'", 'confirmed'],
    ['confirmedUnder', { confirmedUnder: 'era-3' }],
  ])(
    'takes %s without a mark as a defect of the store: an error logged, no reconnect, the turn missed',
    async (_, renewal) => {
      const counts = { reconnects: 0 };
      const { l, time, lines } = lease({ hold: scriptedHold(async () => renewal, {}, counts) });
      await time.advance(REFRESH_MS * 2);
      expect(l.stats).toMatchObject({ renewals: 0, missedRenewals: 2 });
      expect(counts.reconnects).toBe(0);
      const defect = {
        level: 'error',
        fields: { machineId: 7 },
        message:
          'the Memory hold confirmed a renewal without taking its mark (a defect of the store): the turn is missed',
      };
      expect(lines).toEqual([defect, defect]);
    },
  );

  it('abandoned while a turn is in flight, ignores its answer, and the hold sees the lease closed', async () => {
    const inFlight = gate();
    const answer = gate();
    const answered = gate();
    const closed: boolean[] = [];
    const { l, store, time } = lease({
      hold: scriptedHold(async (turn, s) => {
        closed.push(turn.closed);
        const markMs = turn.mark();
        inFlight.open();
        await answer.passed;
        closed.push(turn.closed);
        s.markMs = markMs; // its write landed, after the lease was abandoned
        answered.open();
        return 'confirmed';
      }),
    });
    await time.advance(REFRESH_MS);
    await inFlight.passed;
    abandonLease(l);
    answer.open();
    await answered.passed;
    await time.advance(REFRESH_MS);
    expect(closed).toEqual([false, true]);
    expect(l.stats.renewals).toBe(0);
    expect(code(() => l.assertValid())).toBe('MACHINE_ID_LEASE_LOST');
    expect(store.disconnects).toBe(1);
  });
});
