import { leaseControls, type LeaseControl } from '../internal/leaseControls.js';
import type { ZooKeeperMachineIdLease } from '../ZooKeeperMachineIdLease.js';

/** The test hooks of a lease (abandon it as a crash would, read its session). */
export function leaseControl(lease: ZooKeeperMachineIdLease): LeaseControl {
  const control = leaseControls.get(lease);
  if (control === undefined)
    throw new Error(`lease of machine id ${lease.machineId} has no control`);
  return control;
}
