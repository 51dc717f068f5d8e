import type { TimeSource, TimerHandle } from '@vesta/core';

interface PendingTimer {
  readonly at: number;
  readonly order: number;
  readonly callback: () => void;
  cancelled: boolean;
}

/** Lets every pending promise continuation and `setImmediate` callback run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A {@link TimeSource} that moves only when a test says so: `advance(ms)` moves the wall and the
 * monotonic clock together and fires the timers that fall due, in order, letting the code they
 * wake run between them; `stepWall(ms)` steps the wall clock alone (an NTP step, a VM restore).
 * Nothing sleeps: a test of a 30 s backoff takes microseconds.
 */
export class ManualTimeSource implements TimeSource {
  #wall: number;
  #monotonic = 0;
  #order = 0;
  #timers: PendingTimer[] = [];
  #wallFrozen = false;

  /** @param wallMs the wall clock's start, Unix ms. */
  constructor(wallMs = Date.UTC(2026, 0, 1)) {
    this.#wall = wallMs;
  }

  readonly now = (): number => this.#wall;

  monotonic(): number {
    return this.#monotonic;
  }

  setTimer(callback: () => void, ms: number): TimerHandle {
    const timer: PendingTimer = {
      at: this.#monotonic + Math.max(0, ms),
      order: this.#order++,
      callback,
      cancelled: false,
    };
    this.#timers.push(timer);
    const handle: TimerHandle = {
      cancel: () => {
        timer.cancelled = true;
      },
      unref: () => handle,
    };
    return handle;
  }

  /** Timers set and neither fired nor cancelled. */
  get pendingTimers(): number {
    return this.#timers.filter((t) => !t.cancelled).length;
  }

  /** From now on the wall clock stands still while monotonic time moves on (a stopped clock); `thaw()` undoes it. */
  freezeWall(): void {
    this.#wallFrozen = true;
  }

  /** The wall clock moves with monotonic time again. */
  thaw(): void {
    this.#wallFrozen = false;
  }

  /** Steps the wall clock by `deltaMs` (negative: back) without moving monotonic time or firing timers. */
  stepWall(deltaMs: number): void {
    this.#wall += deltaMs;
  }

  /**
   * Moves both clocks forward by `ms`, firing every timer that falls due on the way at its own
   * time, and lets the code each one wakes run before moving on.
   */
  async advance(ms: number): Promise<void> {
    const end = this.#monotonic + ms;
    await settle();
    for (;;) {
      const next = this.#next();
      if (next === undefined || next.at > end) break;
      this.#moveTo(next.at);
      this.#timers = this.#timers.filter((t) => t !== next);
      next.callback();
      await settle();
      await settle();
    }
    this.#moveTo(end);
    await settle();
  }

  /** Advances to the next pending timer and fires it (and any due with it); false when none is pending. */
  async runNext(): Promise<boolean> {
    const next = this.#next();
    if (next === undefined) return false;
    await this.advance(next.at - this.#monotonic);
    return true;
  }

  /**
   * Advances in steps of `stepMs` until `done()` holds, at most `maxMs` in all; fails naming
   * `what` when it never does. The way a test waits for an outcome on manual time.
   */
  async advanceUntil(done: () => boolean, what: string, stepMs = 1, maxMs = 60_000): Promise<void> {
    let moved = 0;
    await settle();
    while (!done()) {
      if (moved >= maxMs) throw new Error(`${what}: not after ${maxMs} ms of manual time`);
      await this.advance(stepMs);
      moved += stepMs;
    }
  }

  #next(): PendingTimer | undefined {
    this.#timers = this.#timers.filter((t) => !t.cancelled);
    let best: PendingTimer | undefined;
    for (const t of this.#timers) {
      if (best === undefined || t.at < best.at || (t.at === best.at && t.order < best.order))
        best = t;
    }
    return best;
  }

  #moveTo(monotonic: number): void {
    if (monotonic <= this.#monotonic) return;
    if (!this.#wallFrozen) this.#wall += monotonic - this.#monotonic;
    this.#monotonic = monotonic;
  }
}
