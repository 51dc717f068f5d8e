import { describe, expect, it } from 'vitest';
import { FairIdShare } from './FairIdQueue.js';

/** A share of 1024 ids a 1000 ms unit: 960 ids a second, a bucket of 128. */
function share(): { share: FairIdShare; advance: (ms: number) => void } {
  let now = 0;
  return {
    share: new FairIdShare({ idsPerUnit: 1024, unitMs: 1000, now: () => now }),
    advance: (ms) => (now += ms),
  };
}

describe('FairIdShare', () => {
  it('hands out ids at 15/16 of the layout capacity, from a bucket of 1/8 of a unit', () => {
    const { share: s, advance } = share();
    expect(s.fits(128)).toBe(true);
    s.take({}, 128);
    expect(s.fits(1)).toBe(false);
    expect(s.msUntilFits(1)).toBe(2);
    advance(2);
    expect(s.fits(1)).toBe(true);
    advance(1000);
    // Full again, and no fuller: 960 ids came back, the bucket holds 128.
    expect(s.fits(128)).toBe(true);
    s.take({}, 128);
    expect(s.fits(1)).toBe(false);
  });

  it('lets a request larger than the bucket go when the bucket is full, and leaves it in debt', () => {
    const { share: s, advance } = share();
    s.take({}, 500);
    // 372 in debt plus the 128 to fill the bucket: 500 ids at 0.96 a ms.
    expect(s.msUntilFits(500)).toBe(Math.ceil(500 / 0.96));
    advance(Math.ceil(500 / 0.96));
    expect(s.fits(500)).toBe(true);
    expect(s.fits(0)).toBe(true);
  });

  it('puts a flow that asked for little ahead of flows that took much, and greedy flows in turns', () => {
    const { share: s } = share();
    const [greedyA, greedyB, small] = [{}, {}, {}];
    s.take(greedyA, 1000);
    s.take(greedyB, 1000);
    expect(s.order(small, 1)).toBeLessThan(s.order(greedyA, 1000));
    expect(s.order(small, 1)).toBeLessThan(s.order(greedyB, 1000));
    s.take(greedyA, 1000);
    // A took twice: B goes first.
    expect(s.order(greedyB, 1000)).toBeLessThan(s.order(greedyA, 1000));
    s.take(small, 1);
    expect(s.order(small, 1)).toBeLessThan(s.order(greedyB, 1000));
  });
});
