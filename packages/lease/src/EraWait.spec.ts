import { ManualTimeSource } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { eraWait } from './LeaseProvider.js';

const WAIT_MS = 10_000;

describe('eraWait', () => {
  it('waits waitMs from the first time no era was seen, through the era created meanwhile', async () => {
    const time = new ManualTimeSource();
    const wait = eraWait(time, WAIT_MS);
    expect(wait.observe(undefined, wait.seenAt())).toBe(WAIT_MS);
    await time.advance(4_000);
    expect(wait.observe('e1', wait.seenAt())).toBe(6_000);
    await time.advance(6_000);
    expect(wait.observe('e1', wait.seenAt())).toBe(0);
  });

  it('counts from its own first look at a closed era, not from when the era was created', async () => {
    const time = new ManualTimeSource();
    await time.advance(60_000);
    const wait = eraWait(time, WAIT_MS);
    expect(wait.observe('e1', wait.seenAt())).toBe(WAIT_MS);
  });

  it.each([
    ['starts over when another closed era replaces it (a second data loss)', 'e2', WAIT_MS],
    ['keeps counting when the era node goes missing again', undefined, WAIT_MS - 3_000],
    ['keeps counting while the same era stays closed', 'e1', WAIT_MS - 3_000],
  ])('%s', async (_, next, remainingMs) => {
    const time = new ManualTimeSource();
    const wait = eraWait(time, WAIT_MS);
    wait.observe('e1', wait.seenAt());
    await time.advance(3_000);
    expect(wait.observe(next, wait.seenAt())).toBe(remainingMs);
  });

  it('counts the time the look took: the observation is stamped before the answer is handled', async () => {
    const time = new ManualTimeSource();
    const wait = eraWait(time, WAIT_MS);
    const seenAt = wait.seenAt();
    await time.advance(2_000);
    expect(wait.observe(undefined, seenAt)).toBe(8_000);
  });

  it('does not wait with waitMs 0', () => {
    const time = new ManualTimeSource();
    const wait = eraWait(time, 0);
    expect(wait.observe('e1', wait.seenAt())).toBeLessThanOrEqual(0);
  });
});
