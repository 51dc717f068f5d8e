import type { TimeSource } from '@vesta/core';

/**
 * The fencing bound of a lease, on any coordinator. Issuing is safe only while the last confirmed
 * write is younger than `fenceAfterMs` on the monotonic clock **and** the wall clock is below the
 * mark that write published. Every renewal publishes a mark `fenceAfterMs` ahead of the wall
 * clock (never below what was published or promised before), so an owner cut off from the
 * coordinator, paused or with a stepped clock stops before the mark a later owner waits for.
 */
export class LeaseFence {
  readonly fenceAfterMs: number;
  readonly #time: TimeSource;
  #markMs = Number.NEGATIVE_INFINITY;
  #deadline = Number.NEGATIVE_INFINITY;
  #confirmedAt: number | undefined;

  /** Starts fenced: nothing is confirmed yet. */
  constructor(time: TimeSource, fenceAfterMs: number) {
    this.#time = time;
    this.fenceAfterMs = fenceAfterMs;
  }

  /** When a confirming write is sent (monotonic ms): its confirmation runs from then. */
  sendTime(): number {
    return this.#time.monotonic();
  }

  /** The mark a write publishes: `fenceAfterMs` ahead of the wall clock, and at least every floor. */
  markToPublish(...floorsMs: readonly number[]): number {
    return Math.max(...floorsMs, this.#time.now() + this.fenceAfterMs);
  }

  /** A write sent at `sentAt` (monotonic) published `markMs`: valid for `fenceAfterMs` from then. */
  confirm(markMs: number, sentAt: number): void {
    this.#markMs = markMs;
    this.#deadline = sentAt + this.fenceAfterMs;
    this.#confirmedAt = sentAt;
  }

  /**
   * Valid, unconfirmed, until the wall clock reaches `untilMs` (a lease taken from a cache while
   * the coordinator is unreachable): the monotonic deadline is as far off as that.
   */
  holdUntil(untilMs: number): void {
    this.#markMs = untilMs;
    this.#deadline = this.#time.monotonic() + (untilMs - this.#time.now());
  }

  /** Whether issuing must stop now. */
  get fenced(): boolean {
    return this.#time.monotonic() > this.#deadline || this.#time.now() >= this.#markMs;
  }

  /** The mark last confirmed (or held to): nothing is issued at or after it. */
  get markMs(): number {
    return this.#markMs;
  }

  /** Monotonic ms since the last confirmed write was sent; undefined when none was. */
  get confirmedAgeMs(): number | undefined {
    return this.#confirmedAt === undefined ? undefined : this.#time.monotonic() - this.#confirmedAt;
  }
}
