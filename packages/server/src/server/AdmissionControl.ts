/** A connection as the admission control sees it. */
export interface AdmissionWaiter {
  /** Nothing in flight and nothing queued on this connection. */
  readonly idle: boolean;
  /** Called when the connection may read again. */
  resume(): void;
}

/**
 * The server-wide half of flow control: how many requests are in flight on all connections,
 * and how many answer bytes are being built or wait to be sent. A connection asks before it
 * reads each frame; refused, it pauses and waits in line, and is woken (first come, first
 * served) when a request completes or queued bytes leave.
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
  /** Paused connections, in the order they asked (a Set keeps insertion order). */
  readonly #waiting = new Set<AdmissionWaiter>();
  #granting: AdmissionWaiter | undefined;

  constructor(maxInFlight: number, maxBytes: number) {
    this.#maxInFlight = maxInFlight;
    this.#maxBytes = maxBytes;
  }

  /**
   * Whether the connection may read its next frame now; when not, it is queued and its
   * `resume` is called once it may.
   */
  mayRead(waiter: AdmissionWaiter): boolean {
    if (this.inFlight < this.#maxInFlight) {
      const first = this.#granting === waiter || this.#waiting.size === 0;
      if (waiter.idle || (first && this.bytes <= this.#maxBytes)) {
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

  #wake(): void {
    if (this.#granting !== undefined) return;
    // A connection let in and queued again is met again in this loop, and then stopped by
    // the same limits that queued it: the loop ends.
    for (const next of this.#waiting) {
      if (this.inFlight >= this.#maxInFlight) return;
      if (!next.idle && this.bytes > this.#maxBytes) continue;
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
