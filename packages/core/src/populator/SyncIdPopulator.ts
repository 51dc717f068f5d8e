import { invalidOptions } from '../errors/VestaError.js';
import { BaseIdPopulator } from './BaseIdPopulator.js';
import type { Claim } from './IdPopulator.js';

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
    const ok = this.plan(this.#lastTime, this.#nextSeq, max, out);
    if (ok) {
      this.#lastTime = out.time;
      this.#nextSeq = out.seq + out.count;
    }
    this.noteClaim(out);
    return ok;
  }
}

/** Every call may wait in the queue for the next unit on a timer; offers no synchronous claim. */
export class LockIdPopulator extends SyncIdPopulator {
  override readonly kind = 'lock';
  override readonly canClaimSync = false;

  override claimSync(): void {
    throw invalidOptions(
      "the 'lock' populator issues asynchronously only: use genId(), or the 'sync' or 'atomic' populator",
    );
  }
}
