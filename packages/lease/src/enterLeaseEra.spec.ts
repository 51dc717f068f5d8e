import { sleepOn } from '@vesta/core/kit';
import { ManualTimeSource } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { enterLeaseEra, eraWaitLog } from './LeaseProvider.js';
import type { LeaseEraState, LeaseEraStore } from './LeaseStore.js';

/** An era record in memory, as a coordinator would keep it. */
function memoryStore(initial?: LeaseEraState): LeaseEraStore<LeaseEraState> & {
  current: LeaseEraState | undefined;
} {
  const store = {
    current: initial,
    readEra: async () => store.current,
    createEra: async (era: string) => {
      if (store.current !== undefined) return false;
      store.current = { era, open: false };
      return true;
    },
    openEra: async (found: LeaseEraState) => {
      if (store.current?.era === found.era) store.current = { era: found.era, open: true };
    },
  };
  return store;
}

describe('enterLeaseEra', () => {
  it('returns an open era at once', async () => {
    const time = new ManualTimeSource();
    const era = await enterLeaseEra(memoryStore({ era: 'e1', open: true }), 10_000, time);
    expect(era).toEqual({ era: 'e1', open: true });
  });

  it('creates a missing era closed and opens it only after the wait, telling who created it', async () => {
    const time = new ManualTimeSource();
    const store = memoryStore();
    const created: string[] = [];
    let entered: LeaseEraState | undefined;
    void enterLeaseEra(store, 5_000, time, { onCreated: (era) => created.push(era) }).then(
      (e) => (entered = e),
    );
    await time.advance(4_999);
    expect(entered).toBeUndefined();
    expect(store.current).toMatchObject({ open: false });
    await time.advanceUntil(() => entered !== undefined, 'the era opens');
    expect(entered).toEqual({ era: created[0], open: true });
    expect(created).toHaveLength(1);
  });

  it('waits out a closed era another start created, from its own first look', async () => {
    const time = new ManualTimeSource();
    const store = memoryStore({ era: 'theirs', open: false });
    let entered: LeaseEraState | undefined;
    void enterLeaseEra(store, 3_000, time).then((e) => (entered = e));
    await time.advance(2_999);
    expect(entered).toBeUndefined();
    await time.advanceUntil(() => entered !== undefined, 'the era opens');
    expect(entered).toEqual({ era: 'theirs', open: true });
  });

  it('tells once that it waits, with the era and the time left, even when the era is replaced meanwhile', async () => {
    const time = new ManualTimeSource();
    const store = memoryStore({ era: 'first', open: false });
    const waits: [string, number][] = [];
    let entered: LeaseEraState | undefined;
    void enterLeaseEra(store, 3_000, time, {
      onWait: (era, waitMs) => waits.push([era, waitMs]),
    }).then((e) => (entered = e));
    await time.advance(1_000);
    // The store lost its data again: a new closed era starts the wait over.
    store.current = { era: 'second', open: false };
    await time.advance(4_999);
    expect(entered).toBeUndefined();
    await time.advanceUntil(() => entered !== undefined, 'the era opens');
    expect(entered).toEqual({ era: 'second', open: true });
    expect(waits).toEqual([['first', 3_000]]);
  });

  it('tells nothing when there is no wait', async () => {
    const time = new ManualTimeSource();
    const waits: string[] = [];
    const era = await enterLeaseEra(memoryStore({ era: 'closed', open: false }), 0, time, {
      onWait: (e) => waits.push(e),
    });
    expect(era).toEqual({ era: 'closed', open: true });
    expect(waits).toEqual([]);
  });

  it('counts from its own first look at a closed era, however long before it was created', async () => {
    const time = new ManualTimeSource();
    const store = memoryStore({ era: 'old', open: false });
    await time.advance(60_000);
    let entered: LeaseEraState | undefined;
    void enterLeaseEra(store, 10_000, time).then((e) => (entered = e));
    await time.advance(9_999);
    expect(entered).toBeUndefined();
    await time.advanceUntil(() => entered !== undefined, 'the era opens');
  });

  it('keeps counting when the era goes missing and comes back (no new era)', async () => {
    const time = new ManualTimeSource();
    const store = memoryStore({ era: 'e1', open: false });
    const read = store.readEra;
    let reads = 0;
    // The second look finds nothing, and another start's create wins with the same era.
    store.readEra = async () => (reads++ === 1 ? undefined : read());
    store.createEra = async () => false;
    let openedAt: number | undefined;
    const open = store.openEra;
    store.openEra = async (found) => {
      openedAt ??= time.monotonic();
      return open(found);
    };
    const started = time.monotonic();
    let entered: LeaseEraState | undefined;
    void enterLeaseEra(store, 3_000, time).then((e) => (entered = e));
    await time.advanceUntil(() => entered !== undefined, 'the era opens');
    expect(reads).toBeGreaterThanOrEqual(3);
    expect((openedAt ?? 0) - started).toBeLessThan(2 * 3_000);
  });

  it('counts the wait from the answer of a slow read, not from its request', async () => {
    const time = new ManualTimeSource();
    const store = memoryStore({ era: 'slow', open: false });
    const read = store.readEra;
    let reads = 0;
    store.readEra = async () => {
      // The first answer takes 1 s: the store may have lost its data during that second.
      if (reads++ === 0) await sleepOn(time, 1_000);
      return read();
    };
    let openedAt: number | undefined;
    const open = store.openEra;
    store.openEra = async (found) => {
      openedAt = time.monotonic();
      return open(found);
    };
    let entered: LeaseEraState | undefined;
    void enterLeaseEra(store, 3_000, time).then((e) => (entered = e));
    await time.advanceUntil(() => entered !== undefined, 'the era opens');
    expect(openedAt).toBeGreaterThanOrEqual(1_000 + 3_000);
  });
});

describe('eraWaitLog', () => {
  it('logs the wait of a start on a new store once, when it begins, with its reason and length', async () => {
    const time = new ManualTimeSource();
    const lines: { fields: Record<string, unknown>; message: string }[] = [];
    const logger = {
      info: () => undefined,
      warn: (fields: Record<string, unknown>, message: string) => lines.push({ fields, message }),
      error: () => undefined,
    };
    let entered: LeaseEraState | undefined;
    void enterLeaseEra(
      memoryStore(),
      13_000,
      time,
      eraWaitLog(logger, 'Redis', { prefix: 'p' }),
    ).then((e) => (entered = e));
    await time.advanceUntil(() => lines.length > 0, 'the wait is logged');
    expect(entered).toBeUndefined();
    expect(lines).toEqual([
      {
        fields: { prefix: 'p', era: expect.any(String), waitMs: 13_000 },
        message:
          'Redis holds no open allocation era (a new store, or it lost its data): no machine id is handed out for 13 s, until every holder of ids of lost data has fenced itself',
      },
    ]);
    await time.advanceUntil(() => entered !== undefined, 'the era opens');
    expect(lines).toHaveLength(1);
  });
});
