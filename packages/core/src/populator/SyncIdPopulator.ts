import { BaseIdPopulator } from './BaseIdPopulator.js';
import type { Claim } from './Claim.js';
import { planClaim } from './planClaim.js';

/** Plain fields, no locking: the fastest populator. Busy-waits in `claimSync` when a unit is used up. */
export class SyncIdPopulator extends BaseIdPopulator {
  readonly kind: 'sync' | 'lock' = 'sync';
  #lastTime = 0;
  #nextSeq = 0;

  get lastTime(): number {
    return this.#lastTime;
  }

  resumeAfter(time: number): void {
    if (time > this.#lastTime) {
      this.#lastTime = time;
      this.#nextSeq = this.maxSeq + 1;
    }
  }

  tryClaim(max: number, out: Claim): boolean {
    const ok = planClaim(
      this.timer,
      this.maxSeq,
      this.toleranceMs,
      this.#lastTime,
      this.#nextSeq,
      max,
      out,
      this.maxLeadMs,
    );
    if (ok) {
      this.#lastTime = out.time;
      this.#nextSeq = out.seq + out.count;
    }
    this.noteClaim(out);
    return ok;
  }
}
