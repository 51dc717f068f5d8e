import { ManualTimeSource } from '@vesta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { renewalLoop, type RenewalRun } from './LeaseProvider.js';

const INTERVAL_MS = 100;
const loops: ReturnType<typeof renewalLoop>[] = [];
afterEach(() => loops.splice(0).forEach((loop) => loop.stop()));

/** A loop on manual time whose renewals run `renew` and are counted. */
function countedLoop(renew: () => Promise<void> = async () => undefined) {
  const time = new ManualTimeSource();
  const counted = { runs: 0 };
  const loop = renewalLoop(time, INTERVAL_MS, () => {
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

  it('skips the turn that falls due while a renewal runs, gives the run up at the next and starts another', async () => {
    const finish: (() => void)[] = [];
    const runs: RenewalRun[] = [];
    let abandoned = 0;
    const time = new ManualTimeSource();
    const loop = renewalLoop(
      time,
      INTERVAL_MS,
      (run) => {
        runs.push(run);
        return new Promise<void>((resolve) => finish.push(resolve));
      },
      () => abandoned++,
    );
    loops.push(loop);
    await time.advance(2.5 * INTERVAL_MS);
    // The first run is busy: the second turn is skipped.
    expect({ runs: runs.length, turns: loop.turns, abandoned }).toEqual({
      runs: 1,
      turns: 2,
      abandoned: 0,
    });
    await time.advance(INTERVAL_MS);
    // The third abandons it and runs.
    expect({ runs: runs.length, turns: loop.turns, abandoned }).toEqual({
      runs: 2,
      turns: 3,
      abandoned: 1,
    });
    expect(runs.map((r) => r.abandoned)).toEqual([true, false]);
    // The abandoned run ending changes nothing of the running one.
    finish[0]?.();
    await time.advance(INTERVAL_MS);
    expect({ runs: runs.length, turns: loop.turns }).toEqual({ runs: 2, turns: 4 });
    finish[1]?.();
    await time.advance(INTERVAL_MS);
    expect({ runs: runs.length, turns: loop.turns, abandoned }).toEqual({
      runs: 3,
      turns: 5,
      abandoned: 1,
    });
    finish[2]?.();
    await loop.settled();
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
