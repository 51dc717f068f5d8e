import {
  checkMachineIdInRange,
  type MachineIdLease,
  type MachineIdProvider,
  type MachineIdRequest,
} from './MachineIdProvider.js';

/** A machine id from configuration. Out of the mode's range: MACHINE_ID_OUT_OF_RANGE, never masked. */
export class StaticMachineIdProvider implements MachineIdProvider {
  constructor(readonly machineId: number) {}

  async acquire(request: MachineIdRequest): Promise<MachineIdLease> {
    return { machineId: checkMachineIdInRange(this.machineId, request.range) };
  }
}
