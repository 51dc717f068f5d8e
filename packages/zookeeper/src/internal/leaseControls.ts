import type { ZooKeeperMachineIdLease } from '../ZooKeeperMachineIdLease.js';

/** What tests (and nothing public) may do to a lease from outside. */
export interface LeaseControl {
  /**
   * Stops at once without a final mark, as a crash would: the id node keeps the last mark and
   * the live node goes with the session.
   */
  abandon(): void;
  /** The current ZooKeeper session, to expire it from outside. */
  session(): { id: Buffer; password: Buffer };
}

/**
 * Each lease's {@link LeaseControl}, registered by its constructor. Internal: not exported from
 * the package; the specs import this module directly, so these hooks stay off the public class.
 */
export const leaseControls = new WeakMap<ZooKeeperMachineIdLease, LeaseControl>();
