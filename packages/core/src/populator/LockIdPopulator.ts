import { Mutex } from 'async-mutex';
import { VestaError } from '../errors/VestaError.js';
import type { Claim } from './Claim.js';
import { newClaim } from './Claim.js';
import { SyncIdPopulator } from './SyncIdPopulator.js';

/**
 * Serialises callers through an async-mutex `Mutex`: when a unit is used up the waiters
 * queue in order and await the next unit on a timer, never blocking the event loop.
 * Offers no synchronous claim.
 */
export class LockIdPopulator extends SyncIdPopulator {
  override readonly kind = 'lock';
  override readonly canClaimSync = false;
  readonly #mutex = new Mutex();

  override claimSync(): void {
    throw new VestaError(
      'INVALID_OPTIONS',
      "the 'lock' populator issues asynchronously only: use genId(), or the 'sync' or 'atomic' populator",
    );
  }

  override async claim(max: number): Promise<Claim> {
    if (!this.#mutex.isLocked()) {
      // Nobody is queued, so claiming at once keeps the order.
      const out = newClaim();
      if (this.tryClaim(max, out)) return out;
    }
    return this.#mutex.runExclusive(() => super.claim(max));
  }
}
