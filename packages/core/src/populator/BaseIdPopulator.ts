import { Mutex } from 'async-mutex';
import { VestaError } from '../errors/VestaError.js';
import type { IdMeta } from '../layout/IdMeta.js';
import type { IdServiceObserver } from '../service/IdService.js';
import type { Timer } from '../time/Timer.js';
import { newClaim, type Claim, type IdPopulator, type PopulatorKind } from './IdPopulator.js';

/** What waits are bounded by beyond the tolerance and one unit. */
const WAIT_SLACK_MS = 2000;
export const DEFAULT_MAX_WAITING = 10_000;

/**
 * The waiting shared by the populators; subclasses keep the state. Calls wait for a used-up
 * unit in order; more than `maxWaiting` are OVERLOADED; one not served in time is OVERLOADED
 * when the clock moved, CLOCK_STALLED when it did not.
 */
export abstract class BaseIdPopulator implements IdPopulator {
  abstract readonly kind: PopulatorKind;
  readonly canClaimSync: boolean = true;
  protected readonly maxSeq: number;
  readonly #maxWaitMs: number;
  readonly #queue = new Mutex();
  #waiting = 0;
  #rollingBack = false;
  #closed = false;
  readonly #wakers = new Set<() => void>();

  constructor(
    protected readonly timer: Timer,
    meta: IdMeta,
    protected readonly toleranceMs: number,
    private readonly observer: IdServiceObserver,
    private readonly maxWaiting: number = DEFAULT_MAX_WAITING,
    readonly maxLeadMs = 0,
  ) {
    this.maxSeq = meta.seq.max;
    this.#maxWaitMs = toleranceMs + timer.unitMs + WAIT_SLACK_MS;
  }

  abstract get lastTime(): number;
  abstract tryClaim(max: number, out: Claim): boolean;
  abstract resumeAfter(time: number): void;

  protected plan(lastTime: number, nextSeq: number, max: number, out: Claim): boolean {
    const { timer, maxSeq, toleranceMs, maxLeadMs } = this;
    return planClaim(timer, maxSeq, toleranceMs, lastTime, nextSeq, max, out, maxLeadMs);
  }

  close(): void {
    this.#closed = true;
    for (const wake of this.#wakers) wake();
  }

  get waiting(): boolean {
    return this.#waiting > 0;
  }

  claimSync(max: number, out: Claim): void {
    if (this.tryClaim(max, out)) return;
    this.observer.onSequenceExhausted?.();
    // Bounded on the real monotonic clock: a frozen test clock would spin forever.
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
    if (this.#waiting >= this.maxWaiting) {
      throw new VestaError(
        'OVERLOADED',
        `${this.#waiting} calls already wait for the next time unit (maxWaiting ${this.maxWaiting})`,
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

  async #waitAndClaim(max: number, deadline: number, since: number): Promise<Claim> {
    const out = newClaim();
    this.#throwIfClosed();
    if (this.tryClaim(max, out)) return out;
    this.observer.onSequenceExhausted?.();
    do {
      if (this.timer.time.monotonic() > deadline) throw this.#notServed(since);
      // A timer fires 1 ms late at best, which would skip a millisecond unit whole: sleep until
      // the last millisecond, then poll once per turn of the event loop.
      const ms = this.timer.msUntil(out.time) - this.maxLeadMs;
      await (ms > 1
        ? this.#sleep(Math.min(ms - 1, deadline - this.timer.time.monotonic() + 1))
        : new Promise((resolve) => setImmediate(resolve)));
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

  /** Reports a step back of the clock once, when it starts being absorbed, and each borrowed unit. */
  protected noteClaim(out: Claim): void {
    if (out.borrowed) this.observer.onTimeBorrowed?.(this.timer.toUnixMs(out.time));
    const wasRollingBack = this.#rollingBack;
    this.#rollingBack = out.behindMs > 0;
    if (this.#rollingBack && !wasRollingBack) this.observer.onClockRollback?.(out.behindMs);
  }

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

/**
 * Claims up to `max` sequence numbers after (lastTime, nextSeq) into `out`, or false (`out.time`:
 * the unit to wait for). A step back within `toleranceMs` stays in the last unit; a used-up unit
 * never hands out its sequence again; with `maxLeadMs` the next unit is borrowed while it starts
 * at most that far ahead of the clock.
 */
export function planClaim(
  timer: Timer,
  maxSeq: number,
  toleranceMs: number,
  lastTime: number,
  nextSeq: number,
  max: number,
  out: Claim,
  maxLeadMs = 0,
): boolean {
  const nowMs = timer.clock();
  const now = timer.fromUnixMs(nowMs);
  out.behindMs = 0;
  out.borrowed = false;
  out.atMs = nowMs;
  if (now > lastTime) {
    timer.check(now);
    out.time = now;
    out.seq = 0;
    out.count = max <= maxSeq ? max : maxSeq + 1;
    return true;
  }
  if (now < lastTime) {
    timer.check(now);
    const behindMs = timer.toUnixMs(lastTime) - nowMs - maxLeadMs;
    if (behindMs > toleranceMs) {
      throw new VestaError(
        'CLOCK_MOVED_BACKWARDS',
        `the clock moved back by ${behindMs} ms, more than the tolerance of ${toleranceMs} ms`,
        { details: { behindMs, toleranceMs } },
      );
    }
    if (behindMs > 0) out.behindMs = behindMs;
  }
  if (nextSeq > maxSeq) {
    const next = lastTime + 1;
    out.time = next;
    out.seq = 0;
    if (maxLeadMs > 0 && next <= timer.maxTime && timer.toUnixMs(next) - nowMs <= maxLeadMs) {
      out.count = max <= maxSeq ? max : maxSeq + 1;
      out.borrowed = true;
      return true;
    }
    out.count = 0;
    return false;
  }
  const left = maxSeq + 1 - nextSeq;
  out.time = lastTime;
  out.seq = nextSeq;
  out.count = max <= left ? max : left;
  return true;
}
