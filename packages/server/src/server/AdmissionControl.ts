import { WakeTimer, type FairIdShare } from '@vesta/core/kit';

export interface AdmissionWaiter {
  /** Nothing in flight and nothing queued on this connection. */
  readonly idle: boolean;
  /** Ids the frame it waits to read asks for (0 or absent: none). */
  readonly cost?: number;
  resume(): void;
}

/**
 * The server-wide half of flow control: requests in flight, answer bytes and the layout's ids. A
 * refused connection waits in line, served in the {@link FairIdShare}'s order; an idle one is let
 * past the byte budget (not the request cap), so peers that stopped reading cannot starve readers.
 */
export class AdmissionControl {
  /** On every connection: requests in flight, answer bytes built or queued. */
  inFlight = 0;
  bytes = 0;
  readonly #maxInFlight: number;
  readonly #maxBytes: number;
  readonly #share: FairIdShare | undefined;
  readonly #waiting = new Set<AdmissionWaiter>();
  #granting: AdmissionWaiter | undefined;
  /** The place of the first in line when it waits for ids, not for the caps (else Infinity). */
  #idsHead = Infinity;
  readonly #wakeTimer = new WakeTimer(() => this.#wake());

  constructor(maxInFlight: number, maxBytes: number, share?: FairIdShare) {
    this.#maxInFlight = maxInFlight;
    this.#maxBytes = maxBytes;
    this.#share = share;
  }

  /** Whether the connection may handle its next frame of `cost` ids now (taking them), else queues it. */
  mayRead(waiter: AdmissionWaiter, cost = 0): boolean {
    if (this.inFlight < this.#maxInFlight) {
      const first = this.#granting === waiter || this.#waiting.size === 0;
      if ((waiter.idle || (first && this.bytes <= this.#maxBytes)) && this.#take(waiter, cost)) {
        // Let in: it no longer waits (a stale entry would shield it from the idle timeout).
        this.#waiting.delete(waiter);
        return true;
      }
    }
    this.#waiting.add(waiter);
    return false;
  }

  isWaiting(waiter: AdmissionWaiter): boolean {
    return this.#waiting.has(waiter);
  }

  start(bytes: number): void {
    this.inFlight++;
    this.bytes += bytes;
  }

  finish(bytes: number): void {
    this.inFlight--;
    this.bytes -= bytes;
    this.#wake();
  }

  addBytes(delta: number): void {
    this.bytes += delta;
    if (delta < 0) this.#wake();
  }

  forget(waiter: AdmissionWaiter): void {
    this.#waiting.delete(waiter);
  }

  #take(waiter: AdmissionWaiter, cost: number): boolean {
    const share = this.#share;
    if (share === undefined || cost === 0) return true;
    if (!share.fits(cost)) {
      this.#wakeTimer.wakeWithin(share.msUntilFits(cost));
      return false;
    }
    if (this.#granting !== waiter && share.order(waiter, cost) > this.#idsHead) return false;
    share.take(waiter, cost);
    return true;
  }

  #next(): AdmissionWaiter | undefined {
    const share = this.#share;
    const bytesOk = this.bytes <= this.#maxBytes;
    let best: AdmissionWaiter | undefined;
    let bestOrder = Infinity;
    for (const waiter of this.#waiting) {
      if (!bytesOk && !waiter.idle) continue;
      if (share === undefined) return waiter;
      const order = share.order(waiter, waiter.cost ?? 0);
      if (order < bestOrder) {
        best = waiter;
        bestOrder = order;
      }
    }
    return best;
  }

  #wake(): void {
    if (this.#granting !== undefined) return;
    this.#idsHead = Infinity;
    // Each turn lets one waiter in or ends; the count is a guard on top.
    for (let turns = this.#waiting.size * 2 + 1; turns > 0 && this.#waiting.size > 0; turns--) {
      if (this.inFlight >= this.#maxInFlight) return;
      const next = this.#next();
      if (next === undefined) return;
      const share = this.#share;
      const cost = next.cost ?? 0;
      if (share !== undefined && !share.fits(cost)) {
        this.#idsHead = share.order(next, cost);
        this.#wakeTimer.wakeWithin(share.msUntilFits(cost));
        return;
      }
      this.#waiting.delete(next);
      this.#granting = next;
      try {
        next.resume();
      } finally {
        this.#granting = undefined;
      }
    }
  }
}
