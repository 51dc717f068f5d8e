import type { TimeSource } from '@vesta/core';
import type { TimerHandle } from '@vesta/core';

/**
 * Runs `renew` every `intervalMs` on a {@link TimeSource}, never two runs at once: a turn that
 * falls due while the previous run is still busy is skipped, so a slow coordinator never piles up
 * writes. The timers are unref'd (a lease never keeps a process alive).
 */
export class RenewalLoop {
  readonly #time: TimeSource;
  readonly #intervalMs: number;
  readonly #renew: () => Promise<void>;
  #timer: TimerHandle | undefined;
  /** The run in progress, if any. */
  #running: Promise<void> | undefined;
  #stopped = false;
  #turns = 0;

  constructor(time: TimeSource, intervalMs: number, renew: () => Promise<void>) {
    this.#time = time;
    this.#intervalMs = intervalMs;
    this.#renew = renew;
    this.#arm();
  }

  /** Turns that fell due so far, including those skipped while a run was busy. */
  get turns(): number {
    return this.#turns;
  }

  /** Stops for good; a run in progress completes (see {@link settled}). */
  stop(): void {
    this.#stopped = true;
    this.#timer?.cancel();
  }

  /** Resolves once no run is in progress (at once when none is); never rejects. */
  async settled(): Promise<void> {
    await this.#running;
  }

  #arm(): void {
    if (this.#stopped) return;
    this.#timer = this.#time.setTimer(() => this.#due(), this.#intervalMs).unref();
  }

  #due(): void {
    if (this.#stopped) return;
    this.#arm();
    this.#turns++;
    if (this.#running !== undefined) return;
    this.#running = this.#renew()
      .catch(() => undefined)
      .finally(() => {
        this.#running = undefined;
      });
  }
}
