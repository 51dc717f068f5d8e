import { VestaError } from '../errors/VestaError.js';
import type { IdMeta } from '../layout/IdMeta.js';
import type { IdServiceObserver } from '../service/IdServiceObserver.js';
import { sleep } from '../time/sleep.js';
import type { Timer } from '../time/Timer.js';
import { newClaim, type Claim } from './Claim.js';
import type { IdPopulator, PopulatorKind } from './IdPopulator.js';

/** What waits are bounded by, beyond the tolerance and one unit, on the monotonic clock. */
const WAIT_SLACK_MS = 2000;

/** Resumes after the event loop's pending I/O, without the 1 ms floor of a timer. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The waiting strategies shared by the populators; subclasses say where the state lives. */
export abstract class BaseIdPopulator implements IdPopulator {
  abstract readonly kind: PopulatorKind;
  readonly canClaimSync: boolean = true;
  protected readonly timer: Timer;
  protected readonly maxSeq: number;
  protected readonly toleranceMs: number;
  readonly #observer: IdServiceObserver;
  readonly #maxWaitMs: number;
  #rollingBack = false;

  constructor(timer: Timer, meta: IdMeta, toleranceMs: number, observer: IdServiceObserver) {
    this.timer = timer;
    this.maxSeq = meta.seq.max;
    this.toleranceMs = toleranceMs;
    this.#observer = observer;
    this.#maxWaitMs = toleranceMs + timer.unitMs + WAIT_SLACK_MS;
  }

  abstract get lastTime(): number;
  abstract tryClaim(max: number, out: Claim): boolean;
  abstract resumeAfter(time: number): void;

  claimSync(max: number, out: Claim): void {
    if (this.tryClaim(max, out)) return;
    this.#observer.onSequenceExhausted?.();
    const deadline = performance.now() + this.#maxWaitMs;
    while (!this.tryClaim(max, out)) {
      if (performance.now() > deadline) throw this.#stalled(out);
    }
  }

  async claim(max: number): Promise<Claim> {
    const out = newClaim();
    if (this.tryClaim(max, out)) return out;
    this.#observer.onSequenceExhausted?.();
    const deadline = performance.now() + this.#maxWaitMs;
    do {
      if (performance.now() > deadline) throw this.#stalled(out);
      // A timer fires 1 ms late at best, which would skip the next millisecond unit whole:
      // sleep until the last millisecond, then poll once per turn of the event loop.
      const ms = this.timer.msUntil(out.time);
      await (ms > 1 ? sleep(ms - 1) : nextTurn());
    } while (!this.tryClaim(max, out));
    return out;
  }

  /** Reports a step back of the clock once, when it starts being absorbed. */
  protected noteRollback(out: Claim): void {
    if (out.behindMs > 0) {
      if (!this.#rollingBack) {
        this.#rollingBack = true;
        this.#observer.onClockRollback?.(out.behindMs);
      }
    } else if (this.#rollingBack) {
      this.#rollingBack = false;
    }
  }

  #stalled(out: Claim): VestaError {
    return new VestaError(
      'CLOCK_STALLED',
      `the sequence of time unit ${out.time - 1} is used up and the clock did not reach the next unit within ${this.#maxWaitMs} ms`,
      { details: { waitedForTime: out.time } },
    );
  }
}
