/** What {@link FairIdShare} needs to know of the layout, and its time source. */
export interface FairIdShareOptions {
  /** Ids one time unit holds for this machine (2 ^ seqBits). */
  readonly idsPerUnit: number;
  readonly unitMs: number;
  /** A monotonic clock in ms. @default performance.now */
  readonly now?: () => number;
}

const RATE = 15 / 16;
const DEPTH = 1 / 8;

/**
 * Shares a layout's id capacity fairly between flows (connections): ids go at 15/16 of capacity
 * from a bucket of 1/8 of a unit's ids, so a unit runs out only in its last sixteenth; waiting
 * requests go in order of virtual finish time weighted by ids asked for (fair queueing).
 */
export class FairIdShare {
  readonly #ratePerMs: number;
  readonly #depth: number;
  readonly #now: () => number;
  #tokens: number;
  #at: number;
  #virtual = 0;
  readonly #finish = new WeakMap<object, number>();

  constructor(options: FairIdShareOptions) {
    this.#ratePerMs = (options.idsPerUnit * RATE) / options.unitMs;
    this.#depth = Math.max(1, Math.floor(options.idsPerUnit * DEPTH));
    this.#now = options.now ?? (() => performance.now());
    this.#tokens = this.#depth;
    this.#at = this.#now();
  }

  /** A flow's place in line for a request of `cost` ids: lower goes first. */
  order(flow: object, cost: number): number {
    return Math.max(this.#virtual, this.#finish.get(flow) ?? 0) + cost;
  }

  /** Whether `cost` ids may be handed out now (0 always may). */
  fits(cost: number): boolean {
    if (cost === 0) return true;
    this.#refill();
    return this.#tokens >= Math.min(cost, this.#depth);
  }

  /** Hands `cost` ids to the flow (the caller checked {@link fits}). */
  take(flow: object, cost: number): void {
    if (cost === 0) return;
    this.#refill();
    const start = Math.max(this.#virtual, this.#finish.get(flow) ?? 0);
    this.#finish.set(flow, start + cost);
    this.#virtual = start;
    this.#tokens -= cost;
  }

  msUntilFits(cost: number): number {
    if (cost === 0) return 0;
    this.#refill();
    const missing = Math.min(cost, this.#depth) - this.#tokens;
    return missing <= 0 ? 0 : Math.ceil(missing / this.#ratePerMs);
  }

  #refill(): void {
    const now = this.#now();
    if (this.#tokens < this.#depth) {
      this.#tokens = Math.min(this.#depth, this.#tokens + (now - this.#at) * this.#ratePerMs);
    }
    this.#at = now;
  }
}

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
