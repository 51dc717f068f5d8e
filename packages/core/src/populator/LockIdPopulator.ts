import { VestaError } from '../errors/VestaError.js';
import { SyncIdPopulator } from './SyncIdPopulator.js';

/**
 * Every call goes through the waiting queue of {@link BaseIdPopulator} (an async-mutex
 * `Mutex`): when a unit is used up the callers queue in order and await the next unit on a
 * timer, never blocking the event loop. Offers no synchronous claim.
 */
export class LockIdPopulator extends SyncIdPopulator {
  override readonly kind = 'lock';
  override readonly canClaimSync = false;

  override claimSync(): void {
    throw new VestaError(
      'INVALID_OPTIONS',
      "the 'lock' populator issues asynchronously only: use genId(), or the 'sync' or 'atomic' populator",
    );
  }
}
