import { VestaError } from '@vesta/core';
import { codeOf, codeOfAsync, ManualTimeSource } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { createSegmentService } from './createSegmentService.js';
import { SegmentBuffer } from './engine/SegmentBuffer.js';
import { segmentServiceOptions } from './createSegmentService.js';
import { MemorySegmentStore } from './store/MemorySegmentStore.js';
import { GatedSegmentStore } from './testing/GatedSegmentStore.js';
import { MAX_SEGMENT_NUMBER } from './store/SegmentStore.js';

/** Resolves once every pending promise continuation has run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A promise's state without waiting for it. */
function track<T>(promise: Promise<T>): { done: () => boolean; value: () => T | undefined } {
  let done = false;
  let value: T | undefined;
  void promise.then((v) => {
    done = true;
    value = v;
  });
  return { done: () => done, value: () => value };
}

async function storeWith(step: number, start?: bigint): Promise<GatedSegmentStore> {
  const store = new GatedSegmentStore();
  await store.createKey('order', start === undefined ? { step } : { step, start });
  return store;
}

describe('createSegmentService', () => {
  it('serves dense numbers from the key start, the first claim at the key step', async () => {
    const store = await storeWith(10, 100n);
    const service = createSegmentService({ store });
    expect(await service.segments('order', 25)).toEqual(
      Array.from({ length: 25 }, (_, i) => 100n + BigInt(i)),
    );
    expect(store.requests[0]).toEqual({ minStart: 0n });
    await service.close();
  });

  it('claims the next segment in the background once 10% of the current one is used', async () => {
    const store = await storeWith(10);
    const service = createSegmentService({ store, time: new ManualTimeSource() });
    expect(await service.segment('order')).toBe(0n);
    await settle();
    // 1 of 10 used: the second claim is on its way while 9 numbers remain.
    expect(store.requests).toHaveLength(2);
    store.gate();
    expect(await service.segments('order', 9)).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n]);
    await service.close();
  });

  it('does not claim before the refill share is used, and the segment after waits for its claim', async () => {
    const store = await storeWith(10);
    const service = createSegmentService({ store, refillAt: 0.5, time: new ManualTimeSource() });
    await service.segments('order', 4);
    await settle();
    expect(store.requests).toHaveLength(1);
    store.gate();
    await service.segment('order');
    expect(store.requests).toHaveLength(2);
    expect(await service.segments('order', 5)).toEqual([5n, 6n, 7n, 8n, 9n]);
    const next = track(service.segment('order'));
    await settle();
    expect(next.done()).toBe(false);
    expect(store.letOne()).toBe(true);
    await settle();
    expect(next.value()).toBe(10n);
    store.open();
    await service.close();
  });

  it('doubles the step while segments go faster than the target, within maxStep, and halves it down to the key step', async () => {
    const time = new ManualTimeSource();
    const store = await storeWith(10);
    // refillAt 1: a claim only when a call finds the buffer empty, one claim per take below.
    const service = createSegmentService({
      store,
      time,
      targetSegmentMs: 1000,
      maxStep: 40,
      refillAt: 1,
    });
    const steps = (): (number | undefined)[] => store.requests.map((r) => r.step);
    // Fast use: every segment lasts no time at all.
    for (const size of [10, 20, 40, 40]) await service.segments('order', size);
    expect(steps()).toEqual([undefined, 20, 40, 40]);
    // Slow use: each segment outlasts twice the target.
    for (const size of [20, 10, 10]) {
      await time.advance(2500);
      await service.segments('order', size);
    }
    expect(steps()).toEqual([undefined, 20, 40, 40, 20, 10, 10]);
    expect(await service.segment('order')).toBe(150n);
    await service.close();
  });

  it('near 2^63 - 1, asks for the key step once a grown step no longer fits, and issues every number before SEGMENT_SEQUENCE_OVERFLOW', async () => {
    // 41 numbers below the top: with the store's rule (a range ends at 2^63 - 1 at most) steps
    // of 10, 20 and 10 fit, a grown step of 40 does not.
    const start = MAX_SEGMENT_NUMBER - 41n;
    const store = await storeWith(10, start);
    const service = createSegmentService({
      store,
      time: new ManualTimeSource(),
      targetSegmentMs: 1000,
      maxStep: 40,
      refillAt: 1,
    });
    const issued: bigint[] = [];
    for (const size of [10, 20, 10]) issued.push(...(await service.segments('order', size)));
    expect(issued).toEqual(Array.from({ length: 40 }, (_, i) => start + BigInt(i)));
    expect(await codeOfAsync(() => service.segment('order'))).toBe('SEGMENT_SEQUENCE_OVERFLOW');
    expect(store.requests.map((r) => r.step)).toEqual([undefined, 20, 40, 10, 20, 10]);
    await service.close();
  });

  it('keeps the step when a segment lasts between the target and twice the target', async () => {
    const time = new ManualTimeSource();
    const store = await storeWith(10);
    const service = createSegmentService({ store, time, targetSegmentMs: 1000 });
    await service.segment('order');
    await settle();
    // The refill at 10% of the first segment came at once: doubled.
    expect(store.requests.map((r) => r.step)).toEqual([undefined, 20]);
    await time.advance(1500);
    await service.segments('order', 9 + 2);
    await settle();
    expect(store.requests.map((r) => r.step)).toEqual([undefined, 20, 20]);
    await service.close();
  });

  it('serves what is buffered after a failed claim, then answers COORDINATOR_UNAVAILABLE, then recovers above every number', async () => {
    const store = await storeWith(10);
    const service = createSegmentService({ store, time: new ManualTimeSource() });
    expect(await service.segment('order')).toBe(0n);
    await service.segments('order', 9); // the background claim gave [10, 30)
    store.failing = true;
    const requests = store.requests.length;
    // 3 of [10, 30) used: the background claim of the next segment starts, and fails.
    const served = await service.segments('order', 3);
    await settle();
    expect(store.requests).toHaveLength(requests + 1);
    served.push(...(await service.segments('order', 17))); // still buffered
    expect(served).toEqual(Array.from({ length: 20 }, (_, i) => 10n + BigInt(i)));
    const error = await service.segment('order').catch((e: unknown) => e);
    expect(VestaError.is(error, 'COORDINATOR_UNAVAILABLE')).toBe(true);
    expect(await codeOfAsync(() => service.segments('order', 3))).toBe('COORDINATOR_UNAVAILABLE');
    store.failing = false;
    expect(await service.segment('order')).toBe(30n);
    await service.close();
  });

  it('does not move the step on failed claims', async () => {
    const store = await storeWith(10);
    const service = createSegmentService({ store, time: new ManualTimeSource(), retryAfterMs: 0 });
    await service.segment('order'); // [0, 10), then the doubled [10, 30) in the background
    await settle();
    store.failing = true;
    await service.segments('order', 9 + 3);
    await settle(); // the background claim (step 40) failed
    await service.segments('order', 17);
    for (let i = 0; i < 3; i++) {
      expect(await codeOfAsync(() => service.segment('order'))).toBe('COORDINATOR_UNAVAILABLE');
    }
    store.failing = false;
    expect(await service.segment('order')).toBe(30n);
    expect(store.requests.map((r) => r.step)).toEqual([undefined, 20, 40, 40, 40, 40, 40]);
    await service.close();
  });

  it('answers a caller COORDINATOR_UNAVAILABLE after maxWaitMs of a claim in flight, which then serves the next caller from its start', async () => {
    const store = await storeWith(10);
    const time = new ManualTimeSource();
    const service = createSegmentService({ store, time, maxWaitMs: 500 });
    store.gate();
    const first = track(service.segment('order').catch((error: unknown) => error));
    await time.advance(499);
    expect(first.done()).toBe(false);
    await time.advance(1);
    await settle();
    expect(VestaError.is(first.value(), 'COORDINATOR_UNAVAILABLE')).toBe(true);
    expect(store.waiting).toBe(1);
    const second = service.segment('order');
    store.open();
    expect(await second).toBe(0n);
    await service.close();
  });

  it('drops the buffer of an unknown key once its claim fails, though its caller left at maxWaitMs', async () => {
    const store = new GatedSegmentStore(); // no key created: claims fail SEGMENT_KEY_UNKNOWN
    const time = new ManualTimeSource();
    let dropped = 0;
    const settings = { ...segmentServiceOptions.resolve({ store, maxWaitMs: 500 }), time };
    const buffer = new SegmentBuffer('nope', settings, () => dropped++);
    store.gate();
    const caller = track(buffer.take(1).catch((error: unknown) => error));
    await time.advance(500);
    await settle();
    expect(VestaError.is(caller.value(), 'COORDINATOR_UNAVAILABLE')).toBe(true);
    expect(dropped).toBe(0); // the claim is still in flight
    store.open();
    await settle();
    expect(dropped).toBe(1);
    expect(buffer.disposable).toBe(true);
  });

  it('drops the buffer of an unknown key when its claim fails while its caller still waits', async () => {
    const store = new GatedSegmentStore(); // no key created: claims fail SEGMENT_KEY_UNKNOWN
    let dropped = 0;
    const settings = { ...segmentServiceOptions.resolve({ store }), time: new ManualTimeSource() };
    const buffer = new SegmentBuffer('nope', settings, () => dropped++);
    const error = await buffer.take(1).catch((e: unknown) => e);
    expect(VestaError.is(error, 'SEGMENT_KEY_UNKNOWN')).toBe(true);
    expect(dropped).toBe(1);
  });

  it('gives concurrent callers distinct, increasing numbers with one claim in flight per key', async () => {
    const store = await storeWith(7);
    const service = createSegmentService({ store });
    store.gate();
    let mostWaiting = 0;
    const calls = Array.from({ length: 60 }, (_, i) => service.segments('order', 1 + (i % 5)));
    for (let round = 0; round < 1000 && store.waiting > 0; round++) {
      mostWaiting = Math.max(mostWaiting, store.waiting);
      store.letOne();
      await settle();
    }
    store.open();
    const results = await Promise.all(calls);
    expect(mostWaiting).toBe(1);
    const all = results.flat();
    expect(new Set(all).size).toBe(all.length);
    // Served in arrival order: the concatenation is the dense sequence.
    expect(all).toEqual(Array.from({ length: all.length }, (_, i) => BigInt(i)));
    await service.close();
  });

  it('hands the unused rest of the current and the prefetched segment back on close, as one range the next service takes first', async () => {
    const store = await storeWith(10);
    const first = createSegmentService({ store });
    await first.segments('order', 3);
    await settle();
    await first.close();
    // [0, 10) and the doubled [10, 30) were claimed; [3, 30) went back.
    expect(await store.keys()).toEqual([{ key: 'order', max: 30n, step: 10 }]);
    const second = createSegmentService({ store });
    expect(await second.segments('order', 27)).toEqual(
      Array.from({ length: 27 }, (_, i) => 3n + BigInt(i)),
    );
    expect(await second.segment('order')).toBe(30n);
    await second.close();
  });

  it('keeps each service increasing: a range handed back below its numbers goes to a new service', async () => {
    const store = await storeWith(10);
    const a = createSegmentService({ store, refillAt: 1 });
    const b = createSegmentService({ store, refillAt: 1 });
    expect(await a.segment('order')).toBe(0n);
    expect(await b.segment('order')).toBe(10n);
    await a.close(); // hands back [1, 10)
    expect(await b.segments('order', 10)).toEqual(
      Array.from({ length: 10 }, (_, i) => 11n + BigInt(i)),
    );
    const c = createSegmentService({ store });
    expect(await c.segment('order')).toBe(1n);
    await Promise.all([b.close(), c.close()]);
  });

  it('answers SEGMENT_KEY_UNKNOWN for a key never created, and INVALID_ARGUMENT for a bad key or count', async () => {
    const service = createSegmentService({ store: new MemorySegmentStore() });
    expect(await codeOfAsync(() => service.segment('nope'))).toBe('SEGMENT_KEY_UNKNOWN');
    expect(await codeOfAsync(() => service.segment(''))).toBe('INVALID_ARGUMENT');
    expect(await codeOfAsync(() => service.segments('nope', 0))).toBe('INVALID_ARGUMENT');
    await service.close();
  });

  it('answers SERVICE_CLOSED after close, also to a caller waiting for a claim', async () => {
    const store = await storeWith(10);
    const service = createSegmentService({ store });
    store.gate();
    const waiting = service.segment('order').catch((e: unknown) => e);
    await settle();
    const closed = service.close();
    expect(VestaError.is(await waiting, 'SERVICE_CLOSED')).toBe(true);
    store.open();
    await closed;
    expect(await codeOfAsync(() => service.segment('order'))).toBe('SERVICE_CLOSED');
    // The claim that landed during close went back whole.
    const next = createSegmentService({ store });
    expect(await next.segment('order')).toBe(0n);
    await next.close();
  });

  it.each([
    [{ refillAt: 1.5 }, 'refillAt'],
    [{ maxStep: 0 }, 'maxStep'],
    [{ targetSegmentMs: -1 }, 'targetSegmentMs'],
    [{ stepp: 1 }, 'stepp'],
  ])('refuses %j with INVALID_OPTIONS', (bad, option) => {
    const error = (() => {
      try {
        createSegmentService({ store: new MemorySegmentStore(), ...bad } as never);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(VestaError.is(error, 'INVALID_OPTIONS')).toBe(true);
    expect((error as Error).message).toContain(option);
    expect(codeOf(() => createSegmentService({ store: {} as never }))).toBe('INVALID_OPTIONS');
  });
});

describe('segmentSync', () => {
  it('hands out buffered numbers now, in the same sequence as segment(), and undefined before the first claim', async () => {
    const store = await storeWith(10);
    const service = createSegmentService({ store, time: new ManualTimeSource() });
    expect(service.segmentSync('order')).toBeUndefined();
    expect(store.requests).toHaveLength(0); // nothing started: the first claim is segment()'s
    expect(await service.segment('order')).toBe(0n);
    const got = [service.segmentSync('order'), service.segmentSync('order')];
    expect(got).toEqual([1n, 2n]);
    expect(await service.segment('order')).toBe(3n);
    await service.close();
  });

  it('keeps the refill ahead of use, and answers undefined once the buffer runs dry', async () => {
    const store = await storeWith(10);
    const service = createSegmentService({ store, time: new ManualTimeSource() });
    await service.segment('order');
    await settle();
    // The second claim (of 20: the step doubles) landed in the background.
    expect(store.requests).toHaveLength(2);
    const served: bigint[] = [];
    for (let n = service.segmentSync('order'); n !== undefined; n = service.segmentSync('order')) {
      served.push(n);
      if (served.length > 100) break;
    }
    expect(served[0]).toBe(1n);
    expect(served.every((n, i) => i === 0 || n === (served[i - 1] as bigint) + 1n)).toBe(true);
    // Once the second segment was partly used, its successor was asked for: ahead of use.
    expect(store.requests.length).toBeGreaterThanOrEqual(3);
    await service.close();
  });

  it('never jumps the queue: while a caller waits for a claim, it answers undefined', async () => {
    const store = await storeWith(10);
    const service = createSegmentService({ store, time: new ManualTimeSource() });
    store.gate();
    const waiting = track(service.segment('order'));
    await settle();
    expect(service.segmentSync('order')).toBeUndefined();
    store.open();
    await settle();
    expect(waiting.value()).toBe(0n);
    expect(service.segmentSync('order')).toBe(1n);
    await service.close();
  });

  it('refuses with SERVICE_CLOSED once the service is closed', async () => {
    const store = await storeWith(10);
    const service = createSegmentService({ store });
    await service.segment('order');
    await service.close();
    expect(codeOf(() => service.segmentSync('order'))).toBe('SERVICE_CLOSED');
  });

  it('issues no number twice when sync and awaiting calls interleave over many small segments', async () => {
    const store = new MemorySegmentStore();
    await store.createKey('order', { step: 3 });
    const service = createSegmentService({ store, maxStep: 3 });
    const seen = new Set<bigint>();
    let last = -1n;
    for (let i = 0; i < 20_000; i++) {
      const n =
        i % 7 === 0
          ? await service.segment('order')
          : (service.segmentSync('order') ?? (await service.segment('order')));
      expect(n > last).toBe(true);
      seen.add(n);
      last = n;
    }
    expect(seen.size).toBe(20_000);
    await service.close();
  });
});
