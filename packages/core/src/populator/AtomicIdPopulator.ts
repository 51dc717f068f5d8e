import { VestaError } from '../errors/VestaError.js';
import type { IdMeta } from '../layout/IdMeta.js';
import type { IdServiceObserver } from '../service/IdService.js';
import type { Timer } from '../time/Timer.js';
import { BaseIdPopulator } from './BaseIdPopulator.js';
import type { Claim } from './IdPopulator.js';
import { sequenceCell, type SharedIdState } from './SharedIdState.js';

/** (time, next sequence) in one shared 64-bit word, advanced by compare-and-swap across threads. */
export class AtomicIdPopulator extends BaseIdPopulator {
  readonly kind = 'atomic';
  readonly #cell: BigInt64Array;
  readonly #shift: bigint;
  readonly #mask: bigint;
  /** The word this thread last read or wrote, decoded; -1 (never a valid word) until then. */
  #seen = -1n;
  #seenTime = 0;
  #seenSeq = 0;

  constructor(
    timer: Timer,
    meta: IdMeta,
    toleranceMs: number,
    observer: IdServiceObserver,
    shared: SharedIdState,
    maxWaiting?: number,
    maxLeadMs?: number,
  ) {
    super(timer, meta, toleranceMs, observer, maxWaiting, maxLeadMs);
    if (meta.time.bits + meta.seq.bits + 1 > 63) {
      throw new VestaError(
        'INVALID_LAYOUT',
        `the 'atomic' populator needs time + sequence bits <= 62, got ${meta.time.bits + meta.seq.bits}`,
      );
    }
    this.#cell = sequenceCell(shared.buffer);
    this.#shift = BigInt(meta.seq.bits + 1);
    this.#mask = (1n << this.#shift) - 1n;
  }

  get lastTime(): number {
    return Number(Atomics.load(this.#cell, 0) >> this.#shift);
  }

  resumeAfter(time: number): void {
    const usedUp = (BigInt(time) << this.#shift) | BigInt(this.maxSeq + 1);
    for (;;) {
      const current = Atomics.load(this.#cell, 0);
      if (current >> this.#shift >= BigInt(time)) return;
      if (Atomics.compareExchange(this.#cell, 0, current, usedUp) === current) return;
    }
  }

  tryClaim(max: number, out: Claim): boolean {
    // Plans on the word this thread last saw (a failed swap returns the actual one); refuses
    // only on the word actually in the cell.
    let current = this.#seen;
    for (;;) {
      const lastTime = this.#seenTime;
      let ok: boolean;
      try {
        ok = this.plan(lastTime, this.#seenSeq, max, out);
      } catch (error) {
        const actual = Atomics.load(this.#cell, 0);
        if (actual === current) throw error;
        current = this.#see(actual);
        continue;
      }
      if (!ok) {
        const actual = Atomics.load(this.#cell, 0);
        if (actual !== current) {
          current = this.#see(actual);
          continue;
        }
        this.noteClaim(out);
        return false;
      }
      // In the word's unit, adding the count (it cannot carry into the time) repacks the word.
      const next =
        out.time === lastTime
          ? current + (out.count === 1 ? 1n : BigInt(out.count))
          : (BigInt(out.time) << this.#shift) | BigInt(out.seq + out.count);
      const witness = Atomics.compareExchange(this.#cell, 0, current, next);
      if (witness === current) {
        this.#seen = next;
        this.#seenTime = out.time;
        this.#seenSeq = out.seq + out.count;
        this.noteClaim(out);
        return true;
      }
      current = this.#see(witness);
    }
  }

  #see(word: bigint): bigint {
    this.#seen = word;
    this.#seenTime = Number(word >> this.#shift);
    this.#seenSeq = Number(word & this.#mask);
    return word;
  }
}
