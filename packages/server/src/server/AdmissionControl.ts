import { WakeTimer, type FairIdShare } from '@vesta/core/kit';

/** A connection as the admission control sees it. */
export interface AdmissionWaiter {
  /** Nothing in flight and nothing queued on this connection. */
  readonly idle: boolean;
  /** Ids the frame it waits to read asks for (0 or absent: not a GENERATE). */
  readonly cost?: number;
  /** Called when the connection may read again. */
  resume(): void;
}

/**
 * The server-wide half of flow control: how many requests are in flight on all connections,
 * how many answer bytes are being built or wait to be sent, and (with a {@link FairIdShare})
 * how the layout's ids are shared. A connection asks before it handles each frame, saying how
 * many ids the frame asks for; refused, it pauses and waits in line, and is woken when a
 * request completes, queued bytes leave or ids come back.
 *
 * The line is served in the share's fair order (weighted by ids; first come, first served
 * among equals, and without a share): a connection that asks for little goes ahead of
 * connections that took much, however many frames they have queued. A reader not waiting
 * goes past the line only with ids to spare and a place ahead of whoever waits for ids.
 *
 * A connection with nothing in flight and nothing queued is let past the byte budget (not past
 * the request cap): peers that stopped reading keep their queued bytes until the idle timeout
 * cuts them, and must not starve the clients that do read.
 */
export class AdmissionControl {
  /** Requests in flight on every connection. */
  inFlight = 0;
  /** Answer bytes being built or queued on every connection. */
  bytes = 0;
  readonly #maxInFlight: number;
  readonly #maxBytes: number;
  readonly #share: FairIdShare | undefined;
  /** Paused connections, in the order they asked (a Set keeps insertion order). */
  readonly #waiting = new Set<AdmissionWaiter>();
  #granting: AdmissionWaiter | undefined;
  /** The place of the first in line when it waits for ids, not for the caps (else Infinity). */
  #idsHead = Infinity;
  /**
   * Wakes the line once the share has ids again (a waiter may be waiting for nothing else), or
   * sooner when a later reader's fewer ids fit sooner.
   */
  readonly #wakeTimer = new WakeTimer(() => this.#wake());

  constructor(maxInFlight: number, maxBytes: number, share?: FairIdShare) {
    this.#maxInFlight = maxInFlight;
    this.#maxBytes = maxBytes;
    this.#share = share;
  }

  /**
   * Whether the connection may handle its next frame, of `cost` ids, now (the ids are then
   * taken); when not, it is queued and its `resume` is called once it may.
   */
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

  /** Whether the connection is queued for admission. */
  isWaiting(waiter: AdmissionWaiter): boolean {
    return this.#waiting.has(waiter);
  }

  /** A request starts: one more in flight, `bytes` more of answer on the way. */
  start(bytes: number): void {
    this.inFlight++;
    this.bytes += bytes;
  }

  /** A request is answered (its bytes move to the socket, see {@link addBytes}). */
  finish(bytes: number): void {
    this.inFlight--;
    this.bytes -= bytes;
    this.#wake();
  }

  /** Queued bytes grew (positive) or left (negative). */
  addBytes(delta: number): void {
    this.bytes += delta;
    if (delta < 0) this.#wake();
  }

  /** A closed connection leaves the line. */
  forget(waiter: AdmissionWaiter): void {
    this.#waiting.delete(waiter);
  }

  /** Takes the frame's ids when the share has them and the reader's turn has come. */
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

  /** The waiter to wake next: the first in fair order of those the byte budget lets in. */
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
    // Each turn lets one waiter in, or ends. One let in and queued again is stopped the next
    // turn by the same limit that queued it; the count is a guard on top.
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
