import type { TimeSource } from '@vesta/core';

/**
 * The wait of a start on a store that holds no open allocation era (a new store, or one that lost
 * its data while instances may still hold ids of the lost one). Nobody takes an id until
 * `waitMs` (monotonic) has passed since this start itself first saw the era missing or closed:
 * by then every holder of a lost store has passed its fencing bound. Seeing another closed era
 * (the store was lost again) starts the wait over.
 */
export class EraWait {
  readonly #time: TimeSource;
  readonly #waitMs: number;
  #era: string | undefined;
  #since: number | undefined;

  constructor(time: TimeSource, waitMs: number) {
    this.#time = time;
    this.#waitMs = waitMs;
  }

  /** Monotonic now, to stamp an observation of the era. */
  seenAt(): number {
    return this.#time.monotonic();
  }

  /**
   * Notes that no era (`undefined`) or the closed era `era` was seen at `seenAt` (monotonic) and
   * returns how many ms are left to wait before the era may be opened (0 or less: none).
   */
  observe(era: string | undefined, seenAt: number): number {
    if (
      this.#since === undefined ||
      (era !== undefined && this.#era !== undefined && era !== this.#era)
    ) {
      this.#since = seenAt;
    }
    if (era !== undefined) this.#era = era;
    return this.#since + this.#waitMs - this.#time.monotonic();
  }
}
