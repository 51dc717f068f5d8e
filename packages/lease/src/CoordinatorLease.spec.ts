import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualTimeSource } from '@vesta/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { VestaError } from '@vesta/core';
import { silentLogger } from '@vesta/core';
import { abandonLease, CoordinatorLease, type CoordinatorLeaseStart } from './CoordinatorLease.js';
import { LeaseCache } from './LeaseCache.js';
import { LeaseFence } from './LeaseFence.js';
import type { LeaseHold } from './LeaseHold.js';
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

function lease(
  opts: {
    confirmed?: boolean;
    cache?: LeaseCache;
    journal?: LeaseJournal;
    hold?: (store: Store) => LeaseHold;
  } = {},
) {
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
    options: { time, clock: time.now, logger: silentLogger, refreshIntervalMs: REFRESH_MS },
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
  return { l, store, time };
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
});
