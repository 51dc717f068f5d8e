import { VestaError } from '@vesta/core';
import { codeOfAsync, eventually, type TestServer } from '@vesta/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSegmentService } from '../createSegmentService.js';
import type { SegmentService } from '../createSegmentService.js';
import { MAX_SEGMENT_NUMBER, type SegmentStore } from '../store/SegmentStore.js';

/** What the contract needs of a store implementation. */
export interface SegmentStoreHarness {
  readonly name: string;
  /** A store on the run's shared server, in a namespace (schema, prefix) of its own. */
  readonly shared: (namespace: string) => SegmentStore;
  /** A server of the test's own (killed and restarted) and a store on it. */
  readonly own: () => Promise<{
    readonly server: TestServer;
    readonly store: (namespace: string) => SegmentStore;
  }>;
}

const SERVICES = 4;
const PER_SERVICE = 50_000;
const BATCH = 50;
const WORKERS = 8;

/** Whether every number of `numbers` is above the one before. */
function strictlyIncreasing(numbers: readonly bigint[]): boolean {
  return numbers.every((n, i) => i === 0 || n > (numbers[i - 1] as bigint));
}

/**
 * Takes `total` numbers of `key` from `service` with `WORKERS` callers at once, in batches of
 * 1 to `BATCH`; the numbers in the order the service handed them out (every call is a
 * `segments()`, so that every answer reaches its caller after the same number of promise hops
 * and callers resume in the order they were served).
 */
async function drain(service: SegmentService, key: string, total: number): Promise<bigint[]> {
  const got: bigint[] = [];
  let asked = 0;
  const worker = async (w: number): Promise<void> => {
    for (let round = 0; asked < total && round < total; round++) {
      const n = Math.min(1 + ((round * 7 + w) % BATCH), total - asked);
      asked += n;
      got.push(...(await service.segments(key, n)));
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
  return got;
}

/**
 * The contract every {@link SegmentStore} keeps, run against a real server: the store's own
 * rules, then services on it (4 at once, a hand-back, the server killed mid-load).
 */
export function describeSegmentStore(h: SegmentStoreHarness): void {
  const stores: SegmentStore[] = [];
  const shared = (namespace: string): SegmentStore => {
    const store = h.shared(namespace);
    stores.push(store);
    return store;
  };
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
  });
  let n = 0;
  const namespace = (): string => `seg_${process.pid}_${Date.now() % 100_000}_${n++}`;

  describe(`${h.name}: the store`, () => {
    it('creates a key once, claims consecutive ranges at its step or the one asked, and lists keys', async () => {
      const store = shared(namespace());
      expect(await store.createKey('order', { step: 10, start: 5n })).toBe(true);
      expect(await store.createKey('order', { step: 99 })).toBe(false);
      expect(await store.claim('order')).toEqual({
        start: 5n,
        end: 15n,
        keyStep: 10,
        handedBack: false,
      });
      expect(await store.claim('order', { step: 3 })).toEqual({
        start: 15n,
        end: 18n,
        keyStep: 10,
        handedBack: false,
      });
      await store.setStep('order', 20);
      expect(await store.claim('order')).toMatchObject({ start: 18n, end: 38n, keyStep: 20 });
      await store.createKey('invoice', { step: 1 });
      expect(await store.keys()).toEqual([
        { key: 'invoice', max: 0n, step: 1 },
        { key: 'order', max: 38n, step: 20 },
      ]);
    });

    it('answers SEGMENT_KEY_UNKNOWN for a key never created', async () => {
      const store = shared(namespace());
      await store.createKey('known', { step: 1 });
      expect(await codeOfAsync(() => store.claim('unknown'))).toBe('SEGMENT_KEY_UNKNOWN');
      expect(await codeOfAsync(() => store.setStep('unknown', 5))).toBe('SEGMENT_KEY_UNKNOWN');
      expect(await codeOfAsync(() => store.handBack('unknown', { start: 1n, end: 2n }))).toBe(
        'SEGMENT_KEY_UNKNOWN',
      );
    });

    it('hands out a handed-back range first, the lowest at or above the floor, then fresh ones', async () => {
      const store = shared(namespace());
      await store.createKey('order', { step: 100 });
      await store.claim('order');
      await store.claim('order');
      await store.handBack('order', { start: 150n, end: 200n });
      await store.handBack('order', { start: 40n, end: 100n });
      expect(await store.claim('order', { minStart: 100n })).toEqual({
        start: 150n,
        end: 200n,
        keyStep: 100,
        handedBack: true,
      });
      expect(await store.claim('order', { minStart: 100n })).toMatchObject({
        start: 200n,
        end: 300n,
        handedBack: false,
      });
      expect(await store.claim('order')).toMatchObject({ start: 40n, end: 100n, handedBack: true });
      expect(await store.claim('order')).toMatchObject({ start: 300n, end: 400n });
    });

    it('keeps numbers past 2^53 exact', async () => {
      const store = shared(namespace());
      const start = 2n ** 62n + 1n;
      await store.createKey('big', { step: 3, start });
      expect(await store.claim('big')).toMatchObject({ start, end: start + 3n });
      await store.handBack('big', { start: start + 1n, end: start + 3n });
      expect(await store.claim('big', { minStart: start + 1n })).toMatchObject({
        start: start + 1n,
        end: start + 3n,
      });
      expect(await store.keys()).toEqual([{ key: 'big', max: start + 3n, step: 3 }]);
    });

    it('answers SEGMENT_SEQUENCE_OVERFLOW, not COORDINATOR_UNAVAILABLE, for a key whose next range would pass 2^63 - 2, and keeps it as it was', async () => {
      const store = shared(namespace());
      await store.createKey('top', { step: 5, start: MAX_SEGMENT_NUMBER - 7n });
      const service = createSegmentService({ store });
      try {
        expect(await service.segments('top', 5)).toEqual(
          [7n, 6n, 5n, 4n, 3n].map((below) => MAX_SEGMENT_NUMBER - below),
        );
        // The next range would pass 2^63 - 2: the store answers, and the key is used up for good.
        const error = await service.segment('top').catch((e: unknown) => e);
        expect(VestaError.is(error, 'SEGMENT_SEQUENCE_OVERFLOW'), String(error)).toBe(true);
        expect(await codeOfAsync(() => store.claim('top'))).toBe('SEGMENT_SEQUENCE_OVERFLOW');
        expect(await codeOfAsync(() => store.claim('top', { step: 3 }))).toBe(
          'SEGMENT_SEQUENCE_OVERFLOW',
        );
        // A step that still fits is served: the refused claims changed nothing.
        expect(await store.claim('top', { step: 2 })).toMatchObject({
          start: MAX_SEGMENT_NUMBER - 2n,
          end: MAX_SEGMENT_NUMBER,
        });
        expect(await store.keys()).toEqual([{ key: 'top', max: MAX_SEGMENT_NUMBER, step: 5 }]);
      } finally {
        await service.close();
      }
    });

    it('serves 2^63 - 2 as the last number of a key, and refuses (INVALID_ARGUMENT) to create a key that could never serve', async () => {
      const store = shared(namespace());
      for (const [start, step] of [
        [MAX_SEGMENT_NUMBER, 1],
        [MAX_SEGMENT_NUMBER - 1n, 2],
        [MAX_SEGMENT_NUMBER - 3n, 5],
      ] as const) {
        expect(await codeOfAsync(() => store.createKey('never', { step, start }))).toBe(
          'INVALID_ARGUMENT',
        );
      }
      expect(await store.keys()).toEqual([]);
      expect(await store.createKey('last', { step: 1, start: MAX_SEGMENT_NUMBER - 1n })).toBe(true);
      const service = createSegmentService({ store });
      try {
        expect(await service.segment('last')).toBe(2n ** 63n - 2n);
        expect(await codeOfAsync(() => service.segment('last'))).toBe('SEGMENT_SEQUENCE_OVERFLOW');
      } finally {
        await service.close();
      }
    });

    it('gives 32 concurrent claims 32 disjoint ranges', async () => {
      const ns = namespace();
      const store = shared(ns);
      await store.createKey('order', { step: 10 });
      const four = [store, ...Array.from({ length: 3 }, () => shared(ns))];
      const claims = await Promise.all(
        Array.from({ length: 32 }, (_, i) => (four[i % 4] as SegmentStore).claim('order')),
      );
      const starts = claims.map((c) => c.start).sort((a, b) => (a < b ? -1 : 1));
      expect(starts).toEqual(Array.from({ length: 32 }, (_, i) => BigInt(i * 10)));
    });
  });

  describe(`${h.name}: services on the store`, () => {
    it(`gives ${SERVICES} services ${SERVICES * PER_SERVICE} numbers at once without a duplicate, each strictly increasing`, async () => {
      const ns = namespace();
      const setup = shared(ns);
      await setup.createKey('order', { step: 100 });
      // Two services on one store object, the others on stores of their own (own connections).
      const one = shared(ns);
      const services = Array.from({ length: SERVICES }, (_, i) =>
        createSegmentService({ store: i < 2 ? one : shared(ns), maxStep: 5000 }),
      );
      const results = await Promise.all(services.map((s) => drain(s, 'order', PER_SERVICE)));
      for (const numbers of results) {
        expect(numbers).toHaveLength(PER_SERVICE);
        expect(strictlyIncreasing(numbers)).toBe(true);
      }
      const all = results.flat();
      expect(new Set(all).size).toBe(all.length);
      await Promise.all(services.map((s) => s.close()));
    });

    it('hands the unused rest back on close; the next service starts from it, burning no step', async () => {
      const ns = namespace();
      const store = shared(ns);
      await store.createKey('order', { step: 1000 });
      const first = createSegmentService({ store: shared(ns), refillAt: 1 });
      expect(await first.segments('order', 5)).toEqual([0n, 1n, 2n, 3n, 4n]);
      await first.close();
      const second = createSegmentService({ store: shared(ns), refillAt: 1 });
      expect(await second.segment('order')).toBe(5n);
      expect(await store.keys()).toEqual([{ key: 'order', max: 1000n, step: 1000 }]);
      await second.close();
      const third = createSegmentService({ store: shared(ns), refillAt: 1 });
      expect(await third.segment('order')).toBe(6n);
      await third.close();
    });
  });

  describe(`${h.name}: killed mid-load`, () => {
    let own: Awaited<ReturnType<SegmentStoreHarness['own']>>;
    beforeAll(async () => {
      own = await h.own();
    });
    afterAll(async () => {
      await own.server.dispose();
    });

    it('serves from the buffer, then answers COORDINATOR_UNAVAILABLE, then recovers without a duplicate', async () => {
      const store = own.store(namespace());
      await store.createKey('order', { step: 500 });
      const service = createSegmentService({ store, maxStep: 500, retryAfterMs: 0 });
      const seen: bigint[] = [];
      seen.push(...(await service.segments('order', 100)));
      // The background claim of the next segment has landed: 400 + 500 numbers are buffered.
      expect(await eventually(async () => (await store.keys())[0]?.max === 1000n)).toBe(true);
      await own.server.stop({ kill: true });
      let error: unknown;
      for (let i = 0; i < 2000 && error === undefined; i++) {
        try {
          seen.push(await service.segment('order'));
        } catch (e) {
          error = e;
        }
      }
      expect(VestaError.is(error, 'COORDINATOR_UNAVAILABLE')).toBe(true);
      expect(seen).toHaveLength(1000);
      await own.server.restart();
      let recovered: bigint | undefined;
      expect(
        await eventually(async () => {
          recovered = await service.segment('order').catch(() => undefined);
          return recovered !== undefined;
        }, 30_000),
      ).toBe(true);
      seen.push(recovered as bigint, ...(await service.segments('order', 2000)));
      expect(strictlyIncreasing(seen)).toBe(true);
      expect(new Set(seen).size).toBe(seen.length);
      expect(recovered).toBe(1000n);
      await service.close();
      await store.close();
    });
  });
}
