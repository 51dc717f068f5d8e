import { VestaError } from '../errors/VestaError.js';
import type { IdMeta } from '../layout/IdMeta.js';
import type { IdServiceObserver } from '../service/IdServiceObserver.js';
import type { Timer } from '../time/Timer.js';
import { BaseIdPopulator } from './BaseIdPopulator.js';
import type { Claim } from './Claim.js';
import { planClaim } from './planClaim.js';
import { sequenceCell, type SharedIdState } from './SharedIdState.js';

/**
 * Keeps (time, next sequence) in one 64-bit word of a SharedArrayBuffer and advances it with
 * `Atomics.compareExchange`, so worker threads sharing the buffer never hand out the same
 * sequence number. The word holds time above `seqBits + 1` bits of next sequence.
 */
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
    // Plans on the word this thread last saw instead of reading it first: when no other thread
    // moved it, the compare-and-swap succeeds and a read is saved; when one did, the swap fails
    // and returns the word, and the claim is planned again on that. A refusal (used up, or the
    // clock too far back) is only given on the word actually in the cell.
    let current = this.#seen;
    for (;;) {
      const lastTime = this.#seenTime;
      let ok: boolean;
      try {
        ok = planClaim(
          this.timer,
          this.maxSeq,
          this.toleranceMs,
          lastTime,
          this.#seenSeq,
          max,
          out,
          this.maxLeadMs,
        );
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
      // In the unit of the word, the claim starts at its next sequence: adding the count (it
      // cannot carry into the time) repacks the word at the cost of one bigint add.
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

  /** Remembers a word read from the cell, decoded. */
  #see(word: bigint): bigint {
    this.#seen = word;
    this.#seenTime = Number(word >> this.#shift);
    this.#seenSeq = Number(word & this.#mask);
    return word;
  }
}
