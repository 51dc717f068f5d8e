import { describe, expect, it } from 'vitest';
import { wholeNumber } from '@vesta/core/kit';
import { defineLeaseOptions } from './LeaseOptions.js';
import { leaseOptionsShape, resolveLeaseOptions } from './LeaseOptions.js';

const foo = defineLeaseOptions(
  'Foo',
  {
    url: wholeNumber(1, 9),
    operationTimeoutMs: leaseOptionsShape.operationTimeoutMs.unwrap().default(2_000),
    depth: wholeNumber(0, 3).default(1),
  },
  ['fallbackToCache'],
);

describe('defineLeaseOptions', () => {
  it("puts the store's own options first, then the shared ones in their order, a restated one in its place", () => {
    const shared = Object.keys(leaseOptionsShape).filter((name) => name !== 'fallbackToCache');
    expect(Object.keys(foo.schema.shape)).toEqual(['url', 'depth', ...shared]);
  });

  it("takes a restated option's default, and the shared defaults for the rest", () => {
    expect(foo.resolve({ url: 1 })).toMatchObject({
      url: 1,
      depth: 1,
      operationTimeoutMs: 2_000,
      connectTimeoutMs: 5_000,
      fenceAfterMs: 8_000,
    });
  });

  it('refuses an option it leaves out as unknown, naming the store', () => {
    expect(() => foo.resolve({ url: 1, fallbackToCache: true })).toThrow(
      'unknown Foo option "fallbackToCache"',
    );
  });

  it("resolves to the store's own options beside the shared ones, every default filled, frozen", () => {
    const o = resolveLeaseOptions(foo.resolve({ url: 2, fenceAfterMs: 4_000 }));
    expect(o).toMatchObject({ url: 2, depth: 1, ownerWaitMs: 5_000, fallbackToCache: false });
    expect(Object.isFrozen(o)).toBe(true);
  });
});
