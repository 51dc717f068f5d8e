import { VestaError, type SegmentServiceObserver, type TimeSource } from '@vesta/core';
import type { SegmentRange, SegmentStore } from '../store/SegmentStore.js';
import { storeUnavailable } from '../store/storeErrors.js';

/** The service's resolved options a buffer runs with. */
export interface SegmentBufferSettings {
  readonly store: SegmentStore;
  readonly time: TimeSource;
  readonly refillAt: number;
  readonly targetSegmentMs: number;
  readonly maxStep: number;
  readonly retryAfterMs: number;
  readonly maxWaitMs: number;
  readonly observer: SegmentServiceObserver;
}

interface Serving {
  next: bigint;
  readonly start: bigint;
  readonly end: bigint;
  /** From this number on, the next segment is due. */
  readonly refillFrom: bigint;
}

/** A caller waiting for numbers; `resolve` and `reject` end its wait's deadline. */
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
  readonly key: string;
  readonly #s: SegmentBufferSettings;
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
  /** Told when a claim found the key unknown and the buffer holds nothing: the service drops it. */
  readonly #onDisposable: () => void;

  constructor(key: string, settings: SegmentBufferSettings, onDisposable: () => void = () => {}) {
    this.key = key;
    this.#s = settings;
    this.#onDisposable = onDisposable;
  }

  /**
   * It never held a range and waits for nothing. A buffer that served numbers is kept: its high
   * end refuses a range below them, should a store that lost the key create it again.
   */
  get disposable(): boolean {
    return (
      this.#highEnd === 0n &&
      this.#ranges.length === 0 &&
      this.#claiming === undefined &&
      this.#waiters.length === 0
    );
  }

  get buffered(): number {
    let n = 0n;
    for (const r of this.#ranges) n += r.end - r.next;
    return Number(n);
  }

  take(n: number): Promise<bigint[]> {
    if (this.#closed) return Promise.reject(closedError());
    if (this.#waiters.length === 0) {
      const out: bigint[] = [];
      this.#serve(out, n);
      if (out.length === n) {
        this.#s.observer.onServed?.(this.key, n);
        this.#refillIfDue();
        return Promise.resolve(out);
      }
      return this.#wait(n, out);
    }
    return this.#wait(n, []);
  }

  /** One number now when one is buffered and no caller waits ahead; else undefined (nothing starts). */
  takeSync(): bigint | undefined {
    if (this.#closed) throw closedError();
    const r = this.#ranges[0];
    if (r === undefined || this.#waiters.length > 0) return undefined;
    const n = r.next++;
    if (r.next >= r.end) this.#ranges.shift();
    this.#s.observer.onServed?.(this.key, 1);
    if (r.next >= r.refillFrom) this.#refillIfDue();
    return n;
  }

  /**
   * Fails the waiting callers, lets a claim in flight land and hands the unused rest back to the
   * store (adjacent ranges as one); resolves with the ranges whose hand-back failed.
   */
  async close(): Promise<{ unconfirmed: SegmentRange[]; cause?: unknown }> {
    const unconfirmed: SegmentRange[] = [];
    let cause: unknown;
    if (this.#closed) return { unconfirmed };
    this.#closed = true;
    for (const w of this.#waiters.splice(0)) w.reject(closedError());
    await this.#claiming;
    const rest: SegmentRange[] = [];
    for (const r of this.#ranges.splice(0)) {
      if (r.next >= r.end) continue;
      const last = rest.at(-1);
      if (last !== undefined && last.end === r.next)
        rest[rest.length - 1] = { start: last.start, end: r.end };
      else rest.push({ start: r.next, end: r.end });
    }
    for (const range of rest) {
      try {
        await this.#s.store.handBack(this.key, range);
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
      const waiter: Waiter = {
        n,
        out,
        resolve: (numbers) => {
          deadline.cancel();
          resolve(numbers);
        },
        reject: (error) => {
          deadline.cancel();
          reject(error);
        },
      };
      const deadline = this.#s.time.setTimer(() => {
        const at = this.#waiters.indexOf(waiter);
        if (at < 0) return;
        this.#waiters.splice(at, 1);
        reject(
          new VestaError(
            'COORDINATOR_UNAVAILABLE',
            `the segment store gave no range of ${JSON.stringify(this.key)} within ${this.#s.maxWaitMs} ms`,
            { details: { key: this.key } },
          ),
        );
      }, this.#s.maxWaitMs);
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
      this.#s.observer.onServed?.(this.key, w.n);
      w.resolve(w.out);
    }
    if (this.#waiters.length > 0) this.#claim();
    else this.#refillIfDue();
  }

  #refillIfDue(): void {
    if (this.#ranges.length !== 1) return;
    if (
      this.#failedAt !== undefined &&
      this.#s.time.monotonic() - this.#failedAt < this.#s.retryAfterMs
    )
      return;
    if ((this.#ranges[0] as Serving).next >= (this.#ranges[0] as Serving).refillFrom) this.#claim();
  }

  #claim(): void {
    if (this.#claiming !== undefined || this.#closed) return;
    const now = this.#s.time.monotonic();
    // The step moves only when a claim succeeds: failed attempts do not double or halve it.
    const step =
      this.#step === undefined || this.#lastClaimAt === undefined
        ? this.#step
        : nextStep({
            step: this.#step,
            keyStep: this.#keyStep,
            maxStep: this.#s.maxStep,
            elapsedMs: now - this.#lastClaimAt,
            targetMs: this.#s.targetSegmentMs,
          });
    const request =
      step === undefined ? { minStart: this.#highEnd } : { step, minStart: this.#highEnd };
    this.#claiming = this.#s.store.claim(this.key, request).then(
      (claim) => {
        this.#claiming = undefined;
        if (claim.start < this.#highEnd || claim.end <= claim.start) {
          this.#fail(
            new VestaError(
              'INTERNAL_ERROR',
              `the segment store answered [${claim.start}, ${claim.end}) for ${JSON.stringify(this.key)}, not a range at or above ${this.#highEnd}: refused`,
            ),
          );
          return;
        }
        this.#lastClaimAt = now;
        this.#failedAt = undefined;
        this.#keyStep = claim.keyStep;
        this.#step = step ?? claim.keyStep;
        // Once the store confirmed the key: keys that do not exist reach no metric.
        if (!this.#announced) {
          this.#announced = true;
          this.#s.observer.onKey?.(this.key, () => this.buffered);
        }
        this.#highEnd = claim.end;
        this.#s.observer.onClaim?.(
          this.key,
          claim.handedBack ? 'handed_back' : 'fresh',
          Number(claim.end - claim.start),
        );
        this.#ranges.push({
          next: claim.start,
          start: claim.start,
          end: claim.end,
          refillFrom:
            claim.start + BigInt(Math.ceil(this.#s.refillAt * Number(claim.end - claim.start))),
        });
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
    this.#s.observer.onClaim?.(this.key, error.code, 0);
    this.#failedAt = this.#s.time.monotonic();
    for (const w of this.#waiters.splice(0)) w.reject(error);
    // Also when its callers left at maxWaitMs: a key that does not exist leaves no buffer behind.
    if (error.code === 'SEGMENT_KEY_UNKNOWN' && this.disposable) this.#onDisposable();
  }
}

/**
 * Leaf's dynamic step: a segment used within `targetMs` doubles the next (at most `maxStep`),
 * within twice that keeps it, slower halves it; never below the key's step.
 */
export function nextStep(s: {
  readonly step: number;
  readonly keyStep: number;
  readonly maxStep: number;
  /** Monotonic ms since the last claim. */
  readonly elapsedMs: number;
  readonly targetMs: number;
}): number {
  const step =
    s.elapsedMs < s.targetMs
      ? Math.min(s.step * 2, s.maxStep)
      : s.elapsedMs < 2 * s.targetMs
        ? s.step
        : Math.floor(s.step / 2);
  return Math.max(step, s.keyStep);
}

function closedError(): VestaError {
  return new VestaError('SERVICE_CLOSED', 'the segment service was closed');
}
