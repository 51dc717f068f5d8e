import type { SegmentClaimOutcome } from '@vesta/core';
import { ManualTimeSource } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { createSegmentService } from './createSegmentService.js';
import { MemorySegmentStore } from './store/MemorySegmentStore.js';

/** Resolves once every pending promise continuation has run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** An observer that writes down every call, and the buffered() of each key. */
function recorder() {
  const claims: [string, SegmentClaimOutcome, number][] = [];
  const served: [string, number][] = [];
  const buffered = new Map<string, () => number>();
  return {
    claims,
    served,
    buffered,
    observer: {
      onClaim: (key: string, outcome: SegmentClaimOutcome, numbers: number) =>
        claims.push([key, outcome, numbers]),
      onServed: (key: string, count: number) => served.push([key, count]),
      onKey: (key: string, read: () => number) => buffered.set(key, read),
    },
  };
}

describe("a segment service's observer", () => {
  it('hears each claim with its outcome and size, each call served, and reads the numbers buffered', async () => {
    const store = new MemorySegmentStore();
    await store.createKey('order', { step: 10 });
    const seen = recorder();
    const service = createSegmentService({
      store,
      observer: seen.observer,
      time: new ManualTimeSource(),
    });
    await service.segments('order', 3);
    await settle();
    // The first segment, and the next claimed in the background once 10% was used (its step
    // doubled: the manual clock says the first lasted no time).
    expect(seen.claims).toEqual([
      ['order', 'fresh', 10],
      ['order', 'fresh', 20],
    ]);
    expect(seen.served).toEqual([['order', 3]]);
    expect(seen.buffered.get('order')?.()).toBe(27);
    await service.segment('order');
    expect(seen.served).toEqual([
      ['order', 3],
      ['order', 1],
    ]);
    expect(seen.buffered.get('order')?.()).toBe(26);
    await service.close();
    expect(seen.buffered.get('order')?.()).toBe(0);

    // The rest came back: the next service's first claim is a handed-back range.
    const again = recorder();
    const next = createSegmentService({ store, observer: again.observer });
    expect(await next.segment('order')).toBe(4n);
    expect(again.claims[0]).toEqual(['order', 'handed_back', 26]);
    await next.close();
  });

  it("hears a failed claim with the error's code", async () => {
    const seen = recorder();
    const service = createSegmentService({
      store: new MemorySegmentStore(),
      observer: seen.observer,
    });
    await expect(service.segment('nobody')).rejects.toMatchObject({ code: 'SEGMENT_KEY_UNKNOWN' });
    expect(seen.claims).toEqual([['nobody', 'SEGMENT_KEY_UNKNOWN', 0]]);
    expect(seen.served).toEqual([]);
    await service.close();
  });
});

describe('a key the store does not have', () => {
  it('reaches no observer but its failed claim, and is served once the store has it', async () => {
    const store = new MemorySegmentStore();
    const seen = recorder();
    // refillAt 0.5: one number of five used claims nothing more.
    const service = createSegmentService({ store, observer: seen.observer, refillAt: 0.5 });
    await expect(service.segment('later')).rejects.toMatchObject({ code: 'SEGMENT_KEY_UNKNOWN' });
    expect(seen.buffered.has('later')).toBe(false);
    await store.createKey('later', { step: 5, start: 7n });
    expect(await service.segment('later')).toBe(7n);
    expect(seen.buffered.get('later')?.()).toBe(4);
    expect(seen.claims[0]).toEqual(['later', 'SEGMENT_KEY_UNKNOWN', 0]);
    expect(seen.claims[1]).toEqual(['later', 'fresh', 5]);
    await service.close();
  });
});
