/**
 * A one-shot timer that only moves earlier: asked to wake within `ms`, it keeps whichever of
 * that and the wake already set comes first. A fair line waiting for its share's ids uses it to
 * wake when the first in line fits, or sooner when a newcomer's fewer ids fit sooner. It keeps
 * no event loop alive.
 */
export class WakeTimer {
  readonly #onWake: () => void;
  #timer: NodeJS.Timeout | undefined;
  /** When the timer fires (performance.now()). */
  #at = 0;

  constructor(onWake: () => void) {
    this.#onWake = onWake;
  }

  /** Wakes within `ms` (at least 1), unless a wake is already set as soon or sooner. */
  wakeWithin(ms: number): void {
    const delay = Math.max(1, ms);
    const at = performance.now() + delay;
    if (this.#timer !== undefined) {
      if (this.#at <= at) return;
      clearTimeout(this.#timer);
    }
    this.#at = at;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#onWake();
    }, delay);
    this.#timer.unref();
  }
}
