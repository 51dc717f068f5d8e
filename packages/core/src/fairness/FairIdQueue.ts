import type { FairIdShare } from './FairIdShare.js';
import { WakeTimer } from './WakeTimer.js';

interface Waiting {
  readonly flow: object;
  readonly cost: number;
  readonly resolve: () => void;
}

/**
 * Requests for ids that wait their turn in a {@link FairIdShare}: the REST server's batch
 * path, one flow per connection. A request is let through at once while the share has ids
 * and nobody waits; else it waits, and the waiting are let through in the share's order as
 * its ids come back.
 */
export class FairIdQueue {
  readonly #share: FairIdShare;
  readonly #waiting: Waiting[] = [];
  /** Pumps again once the first in line fits (sooner when a newcomer's fewer ids fit sooner). */
  readonly #wake = new WakeTimer(() => this.#pump());

  constructor(share: FairIdShare) {
    this.#share = share;
  }

  /** How many requests wait. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * Takes `cost` ids of the share for the flow: undefined when they were taken at once, else
   * a promise that resolves once they are.
   */
  admit(flow: object, cost: number): Promise<void> | undefined {
    if (this.#waiting.length === 0 && this.#share.fits(cost)) {
      this.#share.take(flow, cost);
      return undefined;
    }
    return new Promise((resolve) => {
      this.#waiting.push({ flow, cost, resolve });
      this.#pump();
    });
  }

  #pump(): void {
    const share = this.#share;
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
