import { VestaError, type SegmentServiceObserver, type TimeSource } from '@vesta/core';
import { storeUnavailable, type SegmentRange, type SegmentStore } from '../store/SegmentStore.js';

/** The service's resolved options a buffer runs with. */
type SegmentBufferSettings = Readonly<
  Record<'refillAt' | 'targetSegmentMs' | 'maxStep' | 'retryAfterMs' | 'maxWaitMs', number>
> & { readonly store: SegmentStore; time: TimeSource; observer: SegmentServiceObserver };

interface Serving extends SegmentRange {
  next: bigint;
  /** From this number on, the next segment is due. */
  readonly refillFrom: bigint;
}

interface Waiter {
  readonly n: number;
  readonly out: bigint[];
  readonly resolve: (numbers: bigint[]) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * The numbers of one key (Leaf's double buffer): the current segment and at most one more,
 * claimed in the background once `refillAt` of the current one is used. Callers are served in
 * arrival order; with nothing buffered they wait for the one claim in flight and get its error
 * when it fails. Each claim asks for a range above the last, so numbers strictly increase.
 */
export class SegmentBuffer {
  #ranges: Serving[] = [];
  #waiters: Waiter[] = [];
  #claiming: Promise<void> | undefined;
  /** The end of the highest range claimed: the next claim's floor. */
  #highEnd = 0n;
  /** Undefined until the first claim told the key's step. */
  #step: number | undefined;
  #keyStep = 1;
  #lastClaimAt: number | undefined;
  #failedAt: number | undefined;
  #closed = false;
  #announced = false;

  /** `onDisposable`: told when a claim found the key unknown and the buffer holds nothing. */
  constructor(
    readonly key: string,
    private readonly s: SegmentBufferSettings,
    private readonly onDisposable: () => void = () => {},
  ) {}

  /** Never held a range (one that did refuses a lower range, should a store that lost the key create it again). */
  get disposable(): boolean {
    return this.#highEnd === 0n && this.#claiming === undefined && this.#waiters.length === 0;
  }

  get buffered(): number {
    return Number(this.#ranges.reduce((n, r) => n + r.end - r.next, 0n));
  }

  take(n: number): Promise<bigint[]> {
    if (this.#closed) return Promise.reject(closedError());
    const out: bigint[] = [];
    if (this.#waiters.length === 0) this.#serve(out, n);
    if (out.length < n) return this.#wait(n, out);
    this.s.observer.onServed?.(this.key, n);
    this.#refillIfDue();
    return Promise.resolve(out);
  }

  /** One number now when one is buffered and no caller waits ahead; else undefined (nothing starts). */
  takeSync(): bigint | undefined {
    if (this.#closed) throw closedError();
    const r = this.#ranges[0];
    if (r === undefined || this.#waiters.length > 0) return undefined;
    const n = r.next++;
    if (r.next >= r.end) this.#ranges.shift();
    this.s.observer.onServed?.(this.key, 1);
    if (r.next >= r.refillFrom) this.#refillIfDue();
    return n;
  }

  /** Fails the waiters, lets a claim in flight land, hands the rest back; resolves with the unconfirmed. */
  async close(): Promise<{ unconfirmed: SegmentRange[]; cause?: unknown }> {
    const unconfirmed: SegmentRange[] = [];
    let cause: unknown;
    if (this.#closed) return { unconfirmed };
    this.#closed = true;
    for (const w of this.#waiters.splice(0)) w.reject(closedError());
    await this.#claiming;
    const rest: { start: bigint; end: bigint }[] = [];
    for (const r of this.#ranges.splice(0)) {
      const last = rest.at(-1);
      if (r.next >= r.end) continue;
      if (last?.end === r.next) last.end = r.end;
      else rest.push({ start: r.next, end: r.end });
    }
    for (const range of rest) {
      try {
        await this.s.store.handBack(this.key, range);
      } catch (error) {
        cause ??= error;
        unconfirmed.push(range);
      }
    }
    return cause === undefined ? { unconfirmed } : { unconfirmed, cause };
  }

  /** Queues a caller until a claim serves it, or `maxWaitMs` (numbers it got so far are lost, never reissued). */
  #wait(n: number, out: bigint[]): Promise<bigint[]> {
    return new Promise((resolve, reject) => {
      const ending =
        <A>(end: (a: A) => void) =>
        (a: A): void => {
          deadline.cancel();
          end(a);
        };
      const waiter: Waiter = { n, out, resolve: ending(resolve), reject: ending(reject) };
      const deadline = this.s.time.setTimer(() => {
        const at = this.#waiters.indexOf(waiter);
        if (at < 0) return;
        this.#waiters.splice(at, 1);
        const why = `the segment store gave no range of ${JSON.stringify(this.key)} within ${this.s.maxWaitMs} ms`;
        reject(new VestaError('COORDINATOR_UNAVAILABLE', why, { details: { key: this.key } }));
      }, this.s.maxWaitMs);
      this.#waiters.push(waiter);
      this.#claim();
    });
  }

  #serve(out: bigint[], n: number): void {
    while (out.length < n) {
      const r = this.#ranges[0];
      if (r === undefined) return;
      while (out.length < n && r.next < r.end) out.push(r.next++);
      if (r.next >= r.end) this.#ranges.shift();
    }
  }

  #drain(): void {
    while (this.#waiters.length > 0) {
      const w = this.#waiters[0] as Waiter;
      this.#serve(w.out, w.n);
      if (w.out.length < w.n) break;
      this.#waiters.shift();
      this.s.observer.onServed?.(this.key, w.n);
      w.resolve(w.out);
    }
    if (this.#waiters.length > 0) this.#claim();
    else this.#refillIfDue();
  }

  #refillIfDue(): void {
    const [r, more] = this.#ranges;
    if (r === undefined || more !== undefined || r.next < r.refillFrom) return;
    const { time, retryAfterMs } = this.s;
    if (this.#failedAt === undefined || time.monotonic() - this.#failedAt >= retryAfterMs) {
      this.#claim();
    }
  }

  #claim(): void {
    if (this.#claiming !== undefined || this.#closed) return;
    const now = this.s.time.monotonic();
    // The step moves only when a claim succeeds: failed attempts do not double or halve it.
    const step =
      this.#step === undefined || this.#lastClaimAt === undefined
        ? this.#step
        : nextStep({
            ...this.s,
            step: this.#step,
            keyStep: this.#keyStep,
            elapsedMs: now - this.#lastClaimAt,
            targetMs: this.s.targetSegmentMs,
          });
    const request = { minStart: this.#highEnd, ...(step !== undefined && { step }) };
    this.#claiming = this.s.store.claim(this.key, request).then(
      (claim) => {
        this.#claiming = undefined;
        if (claim.start < this.#highEnd || claim.end <= claim.start) {
          const why = `the segment store answered [${claim.start}, ${claim.end}) for ${JSON.stringify(this.key)}, not a range at or above ${this.#highEnd}: refused`;
          return this.#fail(new VestaError('INTERNAL_ERROR', why));
        }
        this.#lastClaimAt = now;
        this.#failedAt = undefined;
        this.#keyStep = claim.keyStep;
        this.#step = step ?? claim.keyStep;
        // Once the store confirmed the key: keys that do not exist reach no metric.
        if (!this.#announced) {
          this.#announced = true;
          this.s.observer.onKey?.(this.key, () => this.buffered);
        }
        this.#highEnd = claim.end;
        const outcome = claim.handedBack ? 'handed_back' : 'fresh';
        this.s.observer.onClaim?.(this.key, outcome, Number(claim.end - claim.start));
        const refillAt = Math.ceil(this.s.refillAt * Number(claim.end - claim.start));
        const { start, end } = claim;
        this.#ranges.push({ next: start, start, end, refillFrom: start + BigInt(refillAt) });
        this.#drain();
      },
      (error: unknown) => {
        this.#claiming = undefined;
        // Near 2^63 - 1 a grown step may no longer fit where the key's own still does: ask for
        // that once before saying the key ran out (the step only grows from the key's own).
        if (
          VestaError.is(error, 'SEGMENT_SEQUENCE_OVERFLOW') &&
          step !== undefined &&
          step > this.#keyStep
        ) {
          this.#step = this.#keyStep;
          this.#lastClaimAt = undefined;
          this.#claim();
          return;
        }
        const what = `the segment store did not give a range of ${JSON.stringify(this.key)}`;
        this.#fail(storeUnavailable(what, error, { key: this.key }));
      },
    );
  }

  /** Callers wait only when nothing is buffered: each gets the error. A refill waits `retryAfterMs`. */
  #fail(error: VestaError): void {
    this.s.observer.onClaim?.(this.key, error.code, 0);
    this.#failedAt = this.s.time.monotonic();
    for (const w of this.#waiters.splice(0)) w.reject(error);
    // Also when its callers left at maxWaitMs: a key that does not exist leaves no buffer behind.
    if (error.code === 'SEGMENT_KEY_UNKNOWN' && this.disposable) this.onDisposable();
  }
}

/**
 * Leaf's dynamic step: a segment used within `targetMs` doubles the next (at most `maxStep`),
 * within twice that keeps it, slower halves it; never below the key's step.
 */
export function nextStep(
  s: Readonly<Record<'step' | 'keyStep' | 'maxStep' | 'elapsedMs' | 'targetMs', number>>,
): number {
  const { step, elapsedMs, targetMs } = s;
  const next =
    elapsedMs < targetMs
      ? Math.min(step * 2, s.maxStep)
      : elapsedMs < 2 * targetMs
        ? step
        : Math.floor(step / 2);
  return Math.max(next, s.keyStep);
}

const closedError = (): VestaError =>
  new VestaError('SERVICE_CLOSED', 'the segment service was closed');
