import { setTimeout as sleep } from 'node:timers/promises';
import { VestaError } from '../errors/VestaError.js';
import { MarkCell, SharedFence } from '../populator/SharedIdState.js';
import type { Timer } from '../time/Timer.js';
import type { TimeMarkStore } from './TimeMarkStore.js';

const MAX_MARK_SECONDS = 2 ** 31 - 1;
const LOCK_WAIT_MS = 10_000;

const locked = (): VestaError =>
  new VestaError('STATE_LOCKED', 'another thread held the time-mark writer lock for too long');

/**
 * The time high-water mark: ids are issued only below a mark written durably, `windowMs` ahead of
 * use, so a restart knows how far time was used. It and a writer lock live in shared `cells`.
 */
export class HighWaterMark {
  limitUnit = 0;

  constructor(
    private readonly store: TimeMarkStore,
    private readonly timer: Timer,
    private readonly windowMs: number,
    private readonly cells: Int32Array,
    private readonly onRaise?: (markMs: number) => void,
  ) {}

  get markMs(): number {
    return this.#toMs(Atomics.load(this.cells, MarkCell.MARK));
  }

  ensure(time: number): void {
    const deadline = performance.now() + LOCK_WAIT_MS;
    for (;;) {
      const limit = this.timer.fromUnixMs(this.markMs);
      if (time < limit) {
        this.limitUnit = limit;
        return;
      }
      if (Atomics.compareExchange(this.cells, MarkCell.WRITER, 0, 1) === 0) {
        try {
          if (time >= this.timer.fromUnixMs(this.markMs)) {
            // The owner's close takes the lock after shutting the fence: raise before it reads, or never.
            if (Atomics.load(this.cells, MarkCell.FENCE) === SharedFence.CLOSED) {
              throw new VestaError(
                'SERVICE_CLOSED',
                'the service that owns this shared state closed; the time mark is final',
              );
            }
            const nowMs = this.timer.unixNow();
            const wantMs = Math.max(this.timer.toUnixMs(time + 1), nowMs) + this.windowMs;
            this.#write(Math.ceil((wantMs - this.timer.epochMs) / 1000));
          }
        } finally {
          Atomics.store(this.cells, MarkCell.WRITER, 0);
        }
      } else if (performance.now() > deadline) {
        throw locked();
      }
    }
  }

  /** Runs `fn` holding the writer lock (the owner's close), waiting up to 10 s for a writer. */
  async holdingWriter<T>(fn: () => T): Promise<T> {
    const deadline = performance.now() + LOCK_WAIT_MS;
    while (Atomics.compareExchange(this.cells, MarkCell.WRITER, 0, 1) !== 0) {
      if (performance.now() > deadline) throw locked();
      await sleep(1);
    }
    try {
      return fn();
    } finally {
      Atomics.store(this.cells, MarkCell.WRITER, 0);
    }
  }

  /** At a clean shutdown (no other thread issuing): lowers the mark to just past `lastTime`. */
  lowerTo(lastTime: number): void {
    const seconds = Math.ceil((this.timer.toUnixMs(lastTime + 1) - this.timer.epochMs) / 1000);
    if (seconds < Atomics.load(this.cells, MarkCell.MARK)) this.#write(seconds);
  }

  #write(seconds: number): void {
    if (seconds > MAX_MARK_SECONDS) {
      throw new VestaError(
        'TIME_OVERFLOW',
        'the time mark no longer fits 31 bits of seconds since the epoch',
      );
    }
    const markMs = this.#toMs(seconds);
    this.store.write(markMs);
    Atomics.store(this.cells, MarkCell.MARK, seconds);
    this.limitUnit = this.timer.fromUnixMs(markMs);
    this.onRaise?.(markMs);
  }

  #toMs(seconds: number): number {
    return this.timer.epochMs + seconds * 1000;
  }
}
