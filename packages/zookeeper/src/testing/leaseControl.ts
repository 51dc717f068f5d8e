import { abandonLease } from '@vesta/lease/testing';
import { leaseSession, type ZooKeeperMachineIdLease } from '../ZooKeeperMachineIdLease.js';
import type { ZkSession } from '../zk/ZkClient.js';

/** What tests (and nothing public) may do to a lease from outside. */
export interface LeaseControl {
  /**
   * Stops at once without a final mark, as a crash would: the id node keeps the last mark and
   * the live node goes with the session.
   */
  abandon(): void;
  /** The current ZooKeeper session, to expire it from outside. */
  session(): ZkSession;
}

/** The test hooks of a lease (abandon it as a crash would, read its session). */
export function leaseControl(lease: ZooKeeperMachineIdLease): LeaseControl {
  return {
    abandon: () => abandonLease(lease),
    session: () => leaseSession(lease),
  };
}
