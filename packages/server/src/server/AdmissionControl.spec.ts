import { describe, expect, it } from 'vitest';
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
