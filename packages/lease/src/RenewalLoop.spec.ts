import { ManualTimeSource } from '@vesta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { RenewalLoop } from './RenewalLoop.js';

const INTERVAL_MS = 100;
const loops: RenewalLoop[] = [];
afterEach(() => loops.splice(0).forEach((loop) => loop.stop()));

/** A loop on manual time whose renewals run `renew` and are counted. */
function countedLoop(renew: () => Promise<void> = async () => undefined) {
  const time = new ManualTimeSource();
  const counted = { runs: 0 };
  const loop = new RenewalLoop(time, INTERVAL_MS, () => {
    counted.runs++;
    return renew();
  });
  loops.push(loop);
  return { time, loop, counted };
}

describe('RenewalLoop', () => {
  it('renews once per interval of the time source', async () => {
    const { time, loop, counted } = countedLoop();
    await time.advance(INTERVAL_MS - 1);
    expect(counted.runs).toBe(0);
    await time.advance(1);
    expect(counted.runs).toBe(1);
    await time.advance(3 * INTERVAL_MS);
    expect({ runs: counted.runs, turns: loop.turns }).toEqual({ runs: 4, turns: 4 });
  });

  it('skips the turns that fall due while a renewal is still running, and counts them', async () => {
    let finish: () => void = () => undefined;
    const { time, loop, counted } = countedLoop(
      () => new Promise<void>((resolve) => (finish = resolve)),
    );
    await time.advance(3.5 * INTERVAL_MS);
    expect({ runs: counted.runs, turns: loop.turns }).toEqual({ runs: 1, turns: 3 });
    finish();
    await time.advance(INTERVAL_MS);
    expect({ runs: counted.runs, turns: loop.turns }).toEqual({ runs: 2, turns: 4 });
  });

  it('goes on after a renewal fails', async () => {
    const { time, counted } = countedLoop(async () => {
      throw new Error('ZooKeeper did not answer');
    });
    await time.advance(3 * INTERVAL_MS);
    expect(counted.runs).toBe(3);
  });

  it('renews no more once stopped', async () => {
    const { time, loop, counted } = countedLoop();
    loop.stop();
    await time.advance(10 * INTERVAL_MS);
    expect(counted.runs).toBe(0);
    expect(time.pendingTimers).toBe(0);
  });
});
