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

  constructor(
    timer: Timer,
    meta: IdMeta,
    toleranceMs: number,
    observer: IdServiceObserver,
    shared: SharedIdState,
  ) {
    super(timer, meta, toleranceMs, observer);
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

  tryClaim(max: number, out: Claim): boolean {
    for (;;) {
      const current = Atomics.load(this.#cell, 0);
      const lastTime = Number(current >> this.#shift);
      const nextSeq = Number(current & this.#mask);
      const ok = planClaim(this.timer, this.maxSeq, this.toleranceMs, lastTime, nextSeq, max, out);
      if (!ok) {
        this.noteRollback(out);
        return false;
      }
      const next = (BigInt(out.time) << this.#shift) | BigInt(out.seq + out.count);
      if (Atomics.compareExchange(this.#cell, 0, current, next) === current) {
        this.noteRollback(out);
        return true;
      }
    }
  }
}
