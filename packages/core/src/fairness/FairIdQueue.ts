import type { FairIdShare } from './FairIdShare.js';

interface Waiting {
  readonly flow: object;
  readonly cost: number;
  readonly resolve: () => void;
}

/** Requests for ids waiting their turn in a {@link FairIdShare}, at once while nobody waits. */
export class FairIdQueue {
  readonly #waiting: Waiting[] = [];
  /** Pumps again once the first in line fits (sooner when a newcomer's fewer ids fit sooner). */
  readonly #wake = new WakeTimer(() => this.#pump());

  constructor(private readonly share: FairIdShare) {}

  get waiting(): number {
    return this.#waiting.length;
  }

  /** Takes `cost` ids for the flow: undefined when taken at once, else a promise of it. */
  admit(flow: object, cost: number): Promise<void> | undefined {
    if (this.#waiting.length === 0 && this.share.fits(cost)) {
      this.share.take(flow, cost);
      return undefined;
    }
    return new Promise((resolve) => {
      this.#waiting.push({ flow, cost, resolve });
      this.#pump();
    });
  }

  #pump(): void {
    const share = this.share;
    const waiting = this.#waiting;
    while (waiting.length > 0) {
      let at = 0;
      let best = Infinity;
      for (let i = 0; i < waiting.length; i++) {
        const w = waiting[i] as Waiting;
        const order = share.order(w.flow, w.cost);
        if (order < best) {
          best = order;
          at = i;
        }
      }
      const next = waiting[at] as Waiting;
      if (!share.fits(next.cost)) {
        this.#wake.wakeWithin(share.msUntilFits(next.cost));
        return;
      }
      waiting.splice(at, 1);
      share.take(next.flow, next.cost);
      next.resolve();
    }
  }
}

/** A one-shot timer that only moves earlier (keeping no event loop alive). */
export class WakeTimer {
  #timer: NodeJS.Timeout | undefined;
  #at = 0;

  constructor(private readonly onWake: () => void) {}

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
      this.onWake();
    }, delay);
    this.#timer.unref();
  }
}
