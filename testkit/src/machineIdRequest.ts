import {
  EMBEDDED_MACHINE_ID_RANGE,
  GenMethod,
  IdType,
  type MachineIdRange,
  type MachineIdRequest,
} from '@vesta/core';

/** What an embedded min-granularity service asks a machine-id provider for (in `range`). */
export function machineIdRequest(
  range: MachineIdRange = EMBEDDED_MACHINE_ID_RANGE,
): MachineIdRequest {
  return { range, genMethod: GenMethod.EMBEDDED, type: IdType.MIN_GRANULARITY };
}
