import { setTimeout as sleep } from 'node:timers/promises';
import { VestaError } from '../errors/VestaError.js';
import { MarkCell, SharedFence } from '../populator/SharedIdState.js';
import type { Timer } from '../time/Timer.js';
import type { TimeMarkStore } from './TimeMarkStore.js';

const MAX_MARK_SECONDS = 2 ** 31 - 1;
const LOCK_WAIT_MS = 10_000;

/**
 * The time high-water mark: ids are issued only at times below a mark already written
 * durably, so that after a crash a restart can tell how far time had been used, even when the
 * clock was stepped back while the service was down. The mark runs `windowMs` ahead of use,
 * so it is written about once a window, not once an id.
 *
 * The durable mark (seconds since the epoch) and a writer lock live in `cells`, which may be
 * shared by worker threads: one writes, the others wait for it.
 */
export class HighWaterMark {
  /** Time units below this are covered by the durable mark. */
  limitUnit = 0;
  readonly #store: TimeMarkStore;
  readonly #timer: Timer;
  readonly #windowMs: number;
  readonly #cells: Int32Array;
  readonly #onRaise: ((markMs: number) => void) | undefined;

  constructor(
    store: TimeMarkStore,
    timer: Timer,
    windowMs: number,
    cells: Int32Array,
    onRaise?: (markMs: number) => void,
  ) {
    this.#store = store;
    this.#timer = timer;
    this.#windowMs = windowMs;
    this.#cells = cells;
    this.#onRaise = onRaise;
  }

  /** The durable mark in Unix ms (the epoch when none was written yet by this state). */
  get markMs(): number {
    return this.#toMs(Atomics.load(this.#cells, MarkCell.MARK));
  }

  /** Makes sure `time` lies below the durable mark, writing a new mark when it does not. */
  ensure(time: number): void {
    const deadline = performance.now() + LOCK_WAIT_MS;
    for (;;) {
      const limit = this.#timer.fromUnixMs(this.#toMs(Atomics.load(this.#cells, MarkCell.MARK)));
      if (time < limit) {
        this.limitUnit = limit;
        return;
      }
      if (Atomics.compareExchange(this.#cells, MarkCell.WRITER, 0, 1) === 0) {
        try {
          if (
            time >= this.#timer.fromUnixMs(this.#toMs(Atomics.load(this.#cells, MarkCell.MARK)))
          ) {
            // Checked under the lock: the owner's close takes it after shutting the fence,
            // so a member raises the mark before the owner reads it, or not at all.
            if (Atomics.load(this.#cells, MarkCell.FENCE) === SharedFence.CLOSED) {
              throw new VestaError(
                'SERVICE_CLOSED',
                'the service that owns this shared state closed; the time mark is final',
              );
            }
            const nowMs = this.#timer.clock();
            if (!Number.isSafeInteger(nowMs)) {
              throw new VestaError(
                'INVALID_OPTIONS',
                `the clock must return Unix ms, got ${String(nowMs)}`,
              );
            }
            const wantMs = Math.max(this.#timer.toUnixMs(time + 1), nowMs) + this.#windowMs;
            this.#write(Math.ceil((wantMs - this.#timer.epochMs) / 1000));
          }
        } finally {
          Atomics.store(this.#cells, MarkCell.WRITER, 0);
        }
      } else if (performance.now() > deadline) {
        throw new VestaError(
          'STATE_LOCKED',
          'another thread held the time-mark writer lock for too long',
        );
      }
    }
  }

  /**
   * Runs `fn` holding the mark writer lock, so that no thread sharing these cells raises the
   * mark while `fn` reads (or lowers) it: the owner's close. Waits for a writer that holds the
   * lock (at most 10 s, then STATE_LOCKED) without blocking the event loop.
   */
  async holdingWriter<T>(fn: () => T): Promise<T> {
    const deadline = performance.now() + LOCK_WAIT_MS;
    while (Atomics.compareExchange(this.#cells, MarkCell.WRITER, 0, 1) !== 0) {
      if (performance.now() > deadline) {
        throw new VestaError(
          'STATE_LOCKED',
          'another thread held the time-mark writer lock for too long',
        );
      }
      // Another thread writes the mark (a file write at most): look again shortly.
      await sleep(1);
    }
    try {
      return fn();
    } finally {
      Atomics.store(this.#cells, MarkCell.WRITER, 0);
    }
  }

  /**
   * Lowers the mark to just past `lastTime` at a clean shutdown, so a prompt restart does not
   * wait out the window. Only for state no other thread still issues from.
   */
  lowerTo(lastTime: number): void {
    const seconds = Math.ceil((this.#timer.toUnixMs(lastTime + 1) - this.#timer.epochMs) / 1000);
    if (seconds < Atomics.load(this.#cells, MarkCell.MARK)) this.#write(seconds);
  }

  #write(seconds: number): void {
    if (seconds > MAX_MARK_SECONDS) {
      throw new VestaError(
        'TIME_OVERFLOW',
        'the time mark no longer fits 31 bits of seconds since the epoch',
      );
    }
    const markMs = this.#toMs(seconds);
    this.#store.write(markMs);
    Atomics.store(this.#cells, MarkCell.MARK, seconds);
    this.limitUnit = this.#timer.fromUnixMs(markMs);
    this.#onRaise?.(markMs);
  }

  #toMs(seconds: number): number {
    return this.#timer.epochMs + seconds * 1000;
  }
}
