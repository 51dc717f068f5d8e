import { ManualTimeSource } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { LeaseFence } from './LeaseFence.js';

const FENCE_MS = 400;

describe('LeaseFence', () => {
  it('is fenced until a first write is confirmed', () => {
    expect(new LeaseFence(new ManualTimeSource(), FENCE_MS).fenced).toBe(true);
  });

  it('fences exactly fenceAfterMs after the confirmed write was sent, not when it was answered', async () => {
    const time = new ManualTimeSource();
    const fence = new LeaseFence(time, FENCE_MS);
    const sentAt = fence.sendTime();
    const markMs = fence.markToPublish();
    await time.advance(150); // the answer took 150 ms
    fence.confirm(markMs, sentAt);
    await time.advance(FENCE_MS - 150 - 1);
    expect(fence.fenced).toBe(false);
    await time.advance(1);
    expect(fence.fenced).toBe(true);
  });

  it('fences on the monotonic bound when the wall clock steps back', async () => {
    const time = new ManualTimeSource();
    const fence = new LeaseFence(time, FENCE_MS);
    fence.confirm(fence.markToPublish(), fence.sendTime());
    time.stepWall(-60_000);
    await time.advance(FENCE_MS);
    expect(fence.fenced).toBe(false);
    await time.advance(1);
    expect(fence.fenced).toBe(true);
  });

  it('fences when the wall clock steps forward to the published mark, whatever the monotonic clock says', () => {
    const time = new ManualTimeSource();
    const fence = new LeaseFence(time, FENCE_MS);
    fence.confirm(fence.markToPublish(), fence.sendTime());
    time.stepWall(FENCE_MS - 1);
    expect(fence.fenced).toBe(false);
    time.stepWall(1);
    expect(fence.fenced).toBe(true);
  });

  it('resumes on the next confirmation', async () => {
    const time = new ManualTimeSource();
    const fence = new LeaseFence(time, FENCE_MS);
    fence.confirm(fence.markToPublish(), fence.sendTime());
    await time.advance(FENCE_MS + 1);
    expect(fence.fenced).toBe(true);
    fence.confirm(fence.markToPublish(), fence.sendTime());
    expect(fence.fenced).toBe(false);
    expect(fence.confirmedAgeMs).toBe(0);
  });

  it('publishes a mark fenceAfterMs ahead of the wall clock, never below a floor', () => {
    const time = new ManualTimeSource(1_000_000);
    const fence = new LeaseFence(time, FENCE_MS);
    expect(fence.markToPublish()).toBe(1_000_000 + FENCE_MS);
    expect(fence.markToPublish(1_000_100, 2_000_000)).toBe(2_000_000);
  });

  it('holds a cached lease until the wall clock reaches its end, on both clocks', async () => {
    const time = new ManualTimeSource(1_000_000);
    const fence = new LeaseFence(time, FENCE_MS);
    fence.holdUntil(1_005_000);
    expect(fence.confirmedAgeMs).toBeUndefined();
    await time.advance(4_999);
    expect(fence.fenced).toBe(false);
    await time.advance(1);
    expect(fence.fenced).toBe(true);
  });
});
