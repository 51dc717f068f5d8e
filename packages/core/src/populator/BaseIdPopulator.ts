import { Mutex } from 'async-mutex';
import { VestaError } from '../errors/VestaError.js';
import type { IdMeta } from '../layout/IdMeta.js';
import type { IdServiceObserver } from '../service/IdServiceObserver.js';
import type { Timer } from '../time/Timer.js';
import { newClaim, type Claim } from './Claim.js';
import type { IdPopulator, PopulatorKind } from './IdPopulator.js';

/** What waits are bounded by, beyond the tolerance and one unit, on the monotonic clock. */
const WAIT_SLACK_MS = 2000;
/** The default of `maxWaiting`. */
export const DEFAULT_MAX_WAITING = 10_000;

/** Resumes after the event loop's pending I/O, without the 1 ms floor of a timer. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The waiting strategies shared by the populators; subclasses say where the state lives.
 *
 * When a unit's sequence is used up, `claim` callers queue first come, first served (an
 * async-mutex `Mutex`, whose waiters are served in order) and the one at the head waits for the
 * next unit. At most `maxWaiting` calls wait; more are OVERLOADED at once. A call not served
 * within the wait bound is OVERLOADED when the clock kept moving (demand beyond capacity) and
 * CLOCK_STALLED only when the clock did not reach the unit it waited for.
 *
 * With `maxLeadMs` > 0 a used-up unit is followed by the next one before the clock reaches it
 * (see `planClaim`), up to `maxLeadMs` ahead of the clock; calls wait only beyond that,
 * and then for the clock to come within `maxLeadMs` of the next unit, not for the unit itself.
 */
export abstract class BaseIdPopulator implements IdPopulator {
  abstract readonly kind: PopulatorKind;
  readonly canClaimSync: boolean = true;
  protected readonly timer: Timer;
  protected readonly maxSeq: number;
  protected readonly toleranceMs: number;
  /** How far ahead of the clock a unit may be borrowed; 0: never. */
  readonly maxLeadMs: number;
  readonly #observer: IdServiceObserver;
  readonly #maxWaitMs: number;
  readonly #maxWaiting: number;
  readonly #queue = new Mutex();
  #waiting = 0;
  #rollingBack = false;
  #closed = false;
  /** Wakes the calls sleeping until their unit, so that close() fails them at once. */
  readonly #wakers = new Set<() => void>();

  constructor(
    timer: Timer,
    meta: IdMeta,
    toleranceMs: number,
    observer: IdServiceObserver,
    maxWaiting: number = DEFAULT_MAX_WAITING,
    maxLeadMs = 0,
  ) {
    this.timer = timer;
    this.maxSeq = meta.seq.max;
    this.toleranceMs = toleranceMs;
    this.maxLeadMs = maxLeadMs;
    this.#observer = observer;
    this.#maxWaitMs = toleranceMs + timer.unitMs + WAIT_SLACK_MS;
    this.#maxWaiting = maxWaiting;
  }

  abstract get lastTime(): number;
  abstract tryClaim(max: number, out: Claim): boolean;
  abstract resumeAfter(time: number): void;

  /** Fails every call waiting for the next unit, now and later, with SERVICE_CLOSED. */
  close(): void {
    this.#closed = true;
    for (const wake of this.#wakers) wake();
  }

  /** Whether calls are queued for the next unit: a new call must queue behind them. */
  get waiting(): boolean {
    return this.#waiting > 0;
  }

  claimSync(max: number, out: Claim): void {
    if (this.tryClaim(max, out)) return;
    this.#observer.onSequenceExhausted?.();
    // A synchronous busy wait spends real time whatever the time source: bound it on the real
    // monotonic clock, or a frozen test clock would spin forever.
    const deadline = performance.now() + this.#maxWaitMs;
    const since = this.timer.now();
    while (!this.tryClaim(max, out)) {
      if (performance.now() > deadline) throw this.#notServed(since);
    }
  }

  async claim(max: number): Promise<Claim> {
    if (this.#waiting === 0) {
      const out = newClaim();
      if (this.tryClaim(max, out)) return out;
    }
    if (this.#waiting >= this.#maxWaiting) {
      throw new VestaError(
        'OVERLOADED',
        `${this.#waiting} calls already wait for the next time unit (maxWaiting ${this.#maxWaiting})`,
        { details: { retryAfterMs: this.timer.unitMs, waiting: this.#waiting } },
      );
    }
    this.#waiting++;
    const deadline = this.timer.time.monotonic() + this.#maxWaitMs;
    const since = this.timer.now();
    try {
      return await this.#queue.runExclusive(() => this.#waitAndClaim(max, deadline, since));
    } finally {
      this.#waiting--;
    }
  }

  /** At the head of the queue: waits for the next unit until the call's deadline. */
  async #waitAndClaim(max: number, deadline: number, since: number): Promise<Claim> {
    const out = newClaim();
    this.#throwIfClosed();
    if (this.tryClaim(max, out)) return out;
    this.#observer.onSequenceExhausted?.();
    do {
      if (this.timer.time.monotonic() > deadline) throw this.#notServed(since);
      // A timer fires 1 ms late at best, which would skip the next millisecond unit whole:
      // sleep until the last millisecond, then poll once per turn of the event loop.
      const ms = this.timer.msUntil(out.time) - this.maxLeadMs;
      await (ms > 1
        ? this.#sleep(Math.min(ms - 1, deadline - this.timer.time.monotonic() + 1))
        : nextTurn());
      this.#throwIfClosed();
    } while (!this.tryClaim(max, out));
    return out;
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        timer.cancel();
        this.#wakers.delete(wake);
        resolve();
      };
      const timer = this.timer.time.setTimer(wake, ms);
      this.#wakers.add(wake);
    });
  }

  #throwIfClosed(): void {
    if (this.#closed) throw new VestaError('SERVICE_CLOSED', 'the id service is closed');
  }

  /**
   * After a claim: reports a step back of the clock once, when it starts being absorbed, and
   * each unit borrowed ahead of the clock.
   */
  protected noteClaim(out: Claim): void {
    if (out.borrowed) this.#observer.onTimeBorrowed?.(this.timer.toUnixMs(out.time));
    if (out.behindMs > 0) {
      if (!this.#rollingBack) {
        this.#rollingBack = true;
        this.#observer.onClockRollback?.(out.behindMs);
      }
    } else if (this.#rollingBack) {
      this.#rollingBack = false;
    }
  }

  /**
   * A call that waited its whole bound since unit `since`: the clock moved on meanwhile, so
   * others took the sequence (demand beyond capacity: OVERLOADED), or it did not (CLOCK_STALLED).
   */
  #notServed(since: number): VestaError {
    if (this.timer.now() > since) {
      return new VestaError(
        'OVERLOADED',
        `demand exceeds what the layout issues: no sequence number was free within ${this.#maxWaitMs} ms`,
        { details: { retryAfterMs: this.timer.unitMs } },
      );
    }
    return new VestaError(
      'CLOCK_STALLED',
      `the sequence of time unit ${since} is used up and the clock did not reach the next unit within ${this.#maxWaitMs} ms`,
      { details: { waitedForTime: since + 1 } },
    );
  }
}
