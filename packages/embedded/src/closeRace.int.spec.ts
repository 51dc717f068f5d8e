import { describe, expect, it, vi } from 'vitest';
import { createEmbeddedIdService } from './createEmbeddedIdService.js';
import { sharedClock, startRequestWorker } from '@vesta/testkit';

const WORKER = new URL('./__fixtures__/issueOnSharedClockWorker.ts', import.meta.url).href;

const T = Date.UTC(2026, 0, 1);
/** The control cells of a shared state (core's `markCells`): [mark seconds, writer lock, ...]. */
const MARK = 0;
const WRITER = 1;
/** The fence cell, and its value once the owner closed (core's `SharedFence.CLOSED`). */
const FENCE = 3;
const CLOSED = 2;

describe('a worker thread raising the shared mark while its owner closes', () => {
  it('is refused with SERVICE_CLOSED and leaves the mark where the owner read it', async () => {
    // The wall clock of both threads: a shared cell the test sets.
    const clock = sharedClock(T);
    const owner = await createEmbeddedIdService({
      machineId: 42,
      populator: 'atomic',
      clock: clock.now,
    });
    const config = owner.workerConfig();
    const cells = new Int32Array(config.buffer, 8, 6);
    const sequence = new BigInt64Array(config.buffer, 0, 1);
    const worker = await startRequestWorker(WORKER, { config, clock: clock.buffer });
    try {
      await owner.genId();
      const markBefore = Atomics.load(cells, MARK);
      const claimedBefore = Atomics.load(sequence, 0);

      // The test holds the mark writer, as a thread in the middle of a write would; a minute
      // later the worker's id needs a raise, so it claims, passes its fence check and waits.
      expect(Atomics.compareExchange(cells, WRITER, 0, 1)).toBe(0);
      clock.set(T + 60_000);
      const reply = worker.issue(1);
      await vi.waitFor(() => expect(Atomics.load(sequence, 0)).not.toBe(claimedBefore), {
        timeout: 10_000,
        interval: 1,
      });
      // Its owner closes while it waits (the fence shut, the mark not yet read), then the lock
      // is let go.
      const closed = owner.close();
      await vi.waitFor(() => expect(Atomics.load(cells, FENCE)).toBe(CLOSED), {
        timeout: 10_000,
        interval: 1,
      });
      Atomics.store(cells, WRITER, 0);
      await closed;

      expect(await reply).toEqual({ ids: [], code: 'SERVICE_CLOSED' });
      expect(Atomics.load(cells, MARK)).toBe(markBefore);
    } finally {
      await worker.stop();
    }
  });
});
