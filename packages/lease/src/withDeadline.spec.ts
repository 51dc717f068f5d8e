import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { withDeadline } from './withDeadline.js';

const late = (): Error => new Error('late');

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('withDeadline', () => {
  it('settles as the request does when it settles within the deadline', async () => {
    await expect(withDeadline(Promise.resolve(7), 100, late)).resolves.toBe(7);
    const refused = withDeadline(Promise.reject(new Error('refused')), 100, late);
    await expect(refused).rejects.toThrow('refused');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects with the late error at the deadline, not a millisecond before', async () => {
    let settled: string | undefined;
    const bounded = withDeadline(new Promise<never>(() => undefined), 100, late).catch(
      (error: unknown) => (settled = (error as Error).message),
    );
    await vi.advanceTimersByTimeAsync(99);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await bounded;
    expect(settled).toBe('late');
  });

  it('leaves a request that fails after its deadline unheeded (no unhandled rejection)', async () => {
    let fail: (error: Error) => void = () => undefined;
    const request = new Promise<never>((_, reject) => (fail = reject));
    const bounded = withDeadline(request, 100, late);
    const outcome = expect(bounded).rejects.toThrow('late');
    await vi.advanceTimersByTimeAsync(100);
    await outcome;
    fail(new Error('too late'));
    await vi.advanceTimersByTimeAsync(0);
  });
});
