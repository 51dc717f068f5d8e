import type { MachineIdLease } from '@vesta/core';
import { abandonLease, leaseHoldVerbs } from '@vesta/lease/testing';
import type { ZkClient } from '../zk/ZkClient.js';
import { zkHoldClients } from '../zk/zkHold.js';

/** What tests (and nothing public) may do to a lease from outside. */
export interface LeaseControl {
  /**
   * Stops at once without a final mark, as a crash would: the id node keeps the last mark and
   * the live node goes with the session.
   */
  abandon(): void;
  /** The current ZooKeeper session, to expire it from outside. */
  session(): ReturnType<ZkClient['session']>;
  /** The ZooKeeper client's connection state, e.g. `SYNC_CONNECTED[3]` (diagnostics). */
  connectionState(): string;
}

/** The test hooks of a ZooKeeper lease (abandon it as a crash would, read its session). */
export function leaseControl(lease: MachineIdLease): LeaseControl {
  const connection = () => {
    const verbs = leaseHoldVerbs(lease);
    const zk = verbs && zkHoldClients.get(verbs);
    if (zk === undefined) throw new TypeError('not a ZooKeeper lease');
    return { zk: zk() };
  };
  return {
    abandon: () => abandonLease(lease),
    session: () => connection().zk.session(),
    connectionState: () => String(connection().zk.client.getState()),
  };
}
