import { describe, expect, it } from 'vitest';
import { reclaimOrder } from './planLeaseClaim.js';

describe('reclaimOrder', () => {
  it.each([
    [999, false],
    [1000, false],
    [1001, true],
  ])('after %i ms idle on a 1000 ms reclaim delay, reclaimable: %s', (idleMs, reclaimable) => {
    expect(reclaimOrder([{ machineId: 1, owner: 'a', idleMs }], 1000).length).toBe(
      reclaimable ? 1 : 0,
    );
  });

  it('offers the longest idle id first', () => {
    const order = reclaimOrder(
      [
        { machineId: 1, owner: 'a', idleMs: 2000 },
        { machineId: 2, owner: 'b', idleMs: 5000 },
        { machineId: 3, owner: 'c', idleMs: 3000 },
      ],
      1000,
    );
    expect(order.map((r) => r.machineId)).toEqual([2, 3, 1]);
  });
});
