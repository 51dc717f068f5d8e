/** What {@link FairIdShare} needs to know of the layout, and its time source. */
export interface FairIdShareOptions {
  /** Ids one time unit holds for this machine (2 ^ seqBits). */
  readonly idsPerUnit: number;
  /** Milliseconds in one time unit. */
  readonly unitMs: number;
  /** A monotonic clock in ms. @default performance.now */
  readonly now?: () => number;
}

/** The part of the layout's capacity handed out: the rest is kept for whoever comes next. */
const RATE = 15 / 16;
/** The bucket: a unit's ids handed out at once at most. */
const DEPTH = 1 / 8;

/**
 * Shares a layout's id capacity fairly between flows (a server's connections).
 *
 * **Pace.** Ids are handed out at 15/16 of the layout's capacity, from a bucket that holds
 * 1/8 of a unit's ids: in any unit's span at most 17/16 of a unit is handed out, so however
 * greedy the flows a time unit runs out, if at all, only in its last sixteenth, and a small
 * request waits at most that (62 ms in Vesta's max-peak layout) instead of up to a whole unit
 * (a second) for the next one. A request larger than the bucket (a max batch above 1/8 of a
 * unit) goes when the bucket is full and leaves it in debt.
 *
 * **Order.** Requests waiting for ids are served in order of virtual finish time, as in fair
 * queueing weighted by the ids asked for: each flow's finish is where its last request ended
 * on a virtual clock (the start of the last request served), and a request's place is
 * `max(clock, the flow's finish) + its ids`. A flow that asked for little, or just arrived,
 * goes ahead of flows that took much; flows that ask alike take turns.
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

  /** Milliseconds until `cost` ids fit (0: they do now). */
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
