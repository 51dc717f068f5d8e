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
