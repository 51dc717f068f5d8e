import { describe, expect, it } from 'vitest';
import { FairIdShare } from '@vesta/core/kit';
import { AdmissionControl, type AdmissionWaiter } from './AdmissionControl.js';

function waiter(name: string, woken: string[], idle = false): AdmissionWaiter {
  return {
    idle,
    resume: () => woken.push(name),
  };
}

describe('AdmissionControl', () => {
  it('queues readers over the request cap and wakes them first come, first served', () => {
    const woken: string[] = [];
    const control = new AdmissionControl(1, 1 << 20);
    const [a, b, c] = ['a', 'b', 'c'].map((n) => waiter(n, woken)) as [
      AdmissionWaiter,
      AdmissionWaiter,
      AdmissionWaiter,
    ];
    expect(control.mayRead(a)).toBe(true);
    control.start(100);
    expect(control.mayRead(b)).toBe(false);
    expect(control.mayRead(c)).toBe(false);
    control.finish(100);
    expect(woken).toEqual(['b', 'c']);
  });

  it('lets a reader with nothing in flight or queued past the byte budget, never past the request cap', () => {
    const woken: string[] = [];
    const control = new AdmissionControl(2, 1000);
    const busy = waiter('busy', woken);
    const idle = waiter('idle', woken, true);
    control.start(5000);
    expect(control.mayRead(busy)).toBe(false);
    expect(control.mayRead(idle)).toBe(true);
    control.start(10);
    expect(control.mayRead(idle)).toBe(false);
    control.addBytes(-10);
    expect(woken).toEqual([]);
    control.finish(5000);
    expect(woken).toEqual(['busy', 'idle']);
  });
});

describe('AdmissionControl with a share of the ids', () => {
  it('wakes the reader that asked for little before readers that took much, and paces the ids', async () => {
    const woken: string[] = [];
    let now = 0;
    // 16384 ids a 10 ms unit: 1536 ids a ms, a bucket of 2048.
    const control = new AdmissionControl(
      1,
      1 << 20,
      new FairIdShare({ idsPerUnit: 16_384, unitMs: 10, now: () => now }),
    );
    const greedy = { ...waiter('greedy', woken), cost: 2000 };
    const small = { ...waiter('small', woken), cost: 1 };
    expect(control.mayRead(greedy, 2000)).toBe(true);
    control.start(8000);
    // Over the request cap; and the bucket has 48 ids left, too few for the greedy reader.
    expect(control.mayRead(greedy, 2000)).toBe(false);
    expect(control.mayRead(small, 1)).toBe(false);
    control.finish(8000);
    expect(woken).toEqual(['small']);
    // The greedy reader's ids come back on the share's clock; the control's timer wakes it.
    for (let i = 0; i < 50 && woken.length < 2; i++) {
      now += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(woken).toEqual(['small', 'greedy']);
  });
});
