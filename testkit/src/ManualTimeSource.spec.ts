import { sleepOn } from '@vesta/core/kit';
import { describe, expect, it } from 'vitest';
import { ManualTimeSource } from './ManualTimeSource.js';

describe('ManualTimeSource', () => {
  it('fires timers in time order as time advances, and moves wall and monotonic clocks together', async () => {
    const time = new ManualTimeSource(1_000_000);
    const fired: string[] = [];
    time.setTimer(() => fired.push(`b@${time.monotonic()}`), 20);
    time.setTimer(() => fired.push(`a@${time.monotonic()}`), 10);
    time.setTimer(() => fired.push(`c@${time.monotonic()}`), 30).cancel();
    await time.advance(25);
    expect(fired).toEqual(['a@10', 'b@20']);
    expect(time.monotonic()).toBe(25);
    expect(time.now()).toBe(1_000_025);
    expect(time.pendingTimers).toBe(0);
  });

  it('runs the code a timer wakes before the next timer fires', async () => {
    const time = new ManualTimeSource();
    const order: number[] = [];
    const run = (async () => {
      await sleepOn(time, 100);
      order.push(time.monotonic());
      await sleepOn(time, 100);
      order.push(time.monotonic());
    })();
    await time.advance(1_000);
    await run;
    expect(order).toEqual([100, 200]);
  });

  it('steps the wall clock alone, back or forward, without firing timers', async () => {
    const time = new ManualTimeSource(50_000);
    let fired = false;
    time.setTimer(() => (fired = true), 10);
    time.stepWall(-30_000);
    expect(time.now()).toBe(20_000);
    expect(time.monotonic()).toBe(0);
    expect(fired).toBe(false);
    await time.runNext();
    expect(fired).toBe(true);
    expect(time.now()).toBe(20_010);
  });

  it('keeps a frozen wall clock still while monotonic time and timers move on', async () => {
    const time = new ManualTimeSource(1_000);
    time.freezeWall();
    let fired = false;
    time.setTimer(() => (fired = true), 500);
    await time.advance(600);
    expect({ wall: time.now(), monotonic: time.monotonic(), fired }).toEqual({
      wall: 1_000,
      monotonic: 600,
      fired: true,
    });
    time.thaw();
    await time.advance(10);
    expect(time.now()).toBe(1_010);
  });

  it('advanceUntil fails, naming what it waited for, when the outcome never comes', async () => {
    const time = new ManualTimeSource();
    await expect(time.advanceUntil(() => false, 'the lease', 100, 1_000)).rejects.toThrow(
      'the lease: not after 1000 ms of manual time',
    );
  });
});
