import { describe, expect, it } from 'vitest';
import { FairIdQueue } from './FairIdQueue.js';
import { FairIdShare } from './FairIdQueue.js';

describe('FairIdQueue', () => {
  it('lets a request through at once while ids remain, and the waiting in fair order as ids come back', async () => {
    let now = 0;
    // 8192 ids a 10 ms unit: 768 ids a ms, a bucket of 1024.
    const queue = new FairIdQueue(
      new FairIdShare({ idsPerUnit: 8192, unitMs: 10, now: () => now }),
    );
    const [greedy, other, small] = [{}, {}, {}];
    expect(queue.admit(greedy, 1024)).toBeUndefined();
    const order: string[] = [];
    const waits = [
      queue.admit(greedy, 1024)?.then(() => order.push('greedy')),
      queue.admit(other, 1024)?.then(() => order.push('other')),
      queue.admit(small, 1)?.then(() => order.push('small')),
    ];
    expect(waits.every((w) => w instanceof Promise)).toBe(true);
    expect(queue.waiting).toBe(3);
    // The share's clock moves a unit at a time; the queue's own timer lets the waiting through.
    for (let i = 0; i < 50 && order.length < 3; i++) {
      now += 10;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(order).toEqual(['small', 'other', 'greedy']);
    expect(queue.waiting).toBe(0);
  });
});
