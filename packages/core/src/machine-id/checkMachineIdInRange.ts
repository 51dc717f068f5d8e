import { VestaError } from '../errors/VestaError.js';
import type { MachineIdRange } from '../layout/machineRanges.js';

/** Throws MACHINE_ID_OUT_OF_RANGE unless `machineId` is a whole number in `range`. */
export function checkMachineIdInRange(
  machineId: unknown,
  range: MachineIdRange,
  what = 'machine id',
): number {
  if (
    typeof machineId !== 'number' ||
    !Number.isInteger(machineId) ||
    machineId < range.min ||
    machineId > range.max
  ) {
    throw new VestaError(
      'MACHINE_ID_OUT_OF_RANGE',
      `${what} must be a whole number from ${range.min} to ${range.max}, got ${String(machineId)}`,
      {
        details: {
          machineId: typeof machineId === 'number' ? machineId : String(machineId),
          ...range,
        },
      },
    );
  }
  return machineId;
}
