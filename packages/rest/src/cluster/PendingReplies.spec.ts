import { afterEach, describe, expect, it, vi } from 'vitest';
import { PendingReplies } from './PendingReplies.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('PendingReplies', () => {
  it('matches each reply to its request by id, whatever the order', async () => {
    const pending = new PendingReplies<string>();
    const sent: number[] = [];
    const first = pending.ask(
      (id) => sent.push(id),
      1000,
      () => 'late',
    );
    const second = pending.ask(
      (id) => sent.push(id),
      1000,
      () => 'late',
    );
    expect(sent).toHaveLength(2);
    pending.settle(sent[1] as number, 'two');
    pending.settle(sent[0] as number, 'one');
    expect(await Promise.all([first, second])).toEqual(['one', 'two']);
  });

  it('settles with the fallback once the deadline passes, and drops the late reply', async () => {
    vi.useFakeTimers();
    const pending = new PendingReplies<string>();
    let sentId = -1;
    const answer = pending.ask(
      (id) => (sentId = id),
      500,
      () => 'fallback',
    );
    vi.advanceTimersByTime(500);
    expect(await answer).toBe('fallback');
    expect(() => pending.settle(sentId, 'late')).not.toThrow();
  });

  it('waits for the deadline when sending throws (a closed channel)', async () => {
    vi.useFakeTimers();
    const pending = new PendingReplies<string>();
    const answer = pending.ask(
      () => {
        throw new Error('channel closed');
      },
      200,
      () => 'fallback',
    );
    vi.advanceTimersByTime(200);
    expect(await answer).toBe('fallback');
  });
});
