import { ManualTimeSource } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { RenewalLoop } from './RenewalLoop.js';

describe('RenewalLoop', () => {
  it('renews once per interval of the time source', async () => {
    const time = new ManualTimeSource();
    let runs = 0;
    const loop = new RenewalLoop(time, 100, async () => {
      runs++;
    });
    await time.advance(99);
    expect(runs).toBe(0);
    await time.advance(1);
    expect(runs).toBe(1);
    await time.advance(300);
    expect(runs).toBe(4);
    expect(loop.turns).toBe(4);
    loop.stop();
  });

  it('skips the turns that fall due while a renewal is still running, and counts them', async () => {
    const time = new ManualTimeSource();
    let runs = 0;
    let finish: () => void = () => undefined;
    const loop = new RenewalLoop(time, 100, () => {
      runs++;
      return new Promise<void>((resolve) => (finish = resolve));
    });
    await time.advance(350);
    expect({ runs, turns: loop.turns }).toEqual({ runs: 1, turns: 3 });
    finish();
    await time.advance(100);
    expect({ runs, turns: loop.turns }).toEqual({ runs: 2, turns: 4 });
    loop.stop();
  });

  it('goes on after a renewal fails', async () => {
    const time = new ManualTimeSource();
    let runs = 0;
    const loop = new RenewalLoop(time, 100, async () => {
      runs++;
      throw new Error('ZooKeeper did not answer');
    });
    await time.advance(300);
    expect(runs).toBe(3);
    loop.stop();
  });

  it('renews no more once stopped', async () => {
    const time = new ManualTimeSource();
    let runs = 0;
    const loop = new RenewalLoop(time, 100, async () => {
      runs++;
    });
    loop.stop();
    await time.advance(1000);
    expect(runs).toBe(0);
    expect(time.pendingTimers).toBe(0);
  });
});
