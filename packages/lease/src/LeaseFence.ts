import type { TimeSource } from '@vesta/core';

/**
 * Issuing is safe only while the last confirmed write is younger than `fenceAfterMs` (monotonic)
 * and the wall clock is below the mark it published: an owner cut off, paused or with a stepped
 * clock stops before the mark a later owner waits for.
 */
export class LeaseFence {
  readonly fenceAfterMs: number;
  readonly #time: TimeSource;
  #markMs = Number.NEGATIVE_INFINITY;
  #deadline = Number.NEGATIVE_INFINITY;
  #confirmedAt: number | undefined;

  constructor(time: TimeSource, fenceAfterMs: number) {
    this.#time = time;
    this.fenceAfterMs = fenceAfterMs;
  }

  sendTime(): number {
    return this.#time.monotonic();
  }

  markToPublish(...floorsMs: readonly number[]): number {
    return Math.max(...floorsMs, this.#time.now() + this.fenceAfterMs);
  }

  confirm(markMs: number, sentAt: number): void {
    this.#markMs = markMs;
    this.#deadline = sentAt + this.fenceAfterMs;
    this.#confirmedAt = sentAt;
  }

  /** Valid, unconfirmed, until the wall clock reaches `untilMs` (a start from the cache). */
  holdUntil(untilMs: number): void {
    this.#markMs = untilMs;
    this.#deadline = this.#time.monotonic() + (untilMs - this.#time.now());
  }

  get fenced(): boolean {
    return this.#time.monotonic() > this.#deadline || this.#time.now() >= this.#markMs;
  }

  get markMs(): number {
    return this.#markMs;
  }

  get confirmedAgeMs(): number | undefined {
    return this.#confirmedAt === undefined ? undefined : this.#time.monotonic() - this.#confirmedAt;
  }
}
