import type { RedisMachineIdLease } from '../RedisMachineIdLease.js';

/** What tests (and nothing public) may do to a lease from outside. */
export interface LeaseControl {
  /** Stops at once without a final mark nor release, as a crash would; the live key expires. */
  abandon(): void;
}

/** Each lease's {@link LeaseControl}, registered by its constructor; not exported from the package. */
export const leaseControls = new WeakMap<RedisMachineIdLease, LeaseControl>();
