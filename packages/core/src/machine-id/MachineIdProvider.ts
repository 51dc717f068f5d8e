import { VestaError } from '../errors/VestaError.js';
import type { MachineIdRange } from '../layout/machineRanges.js';

/** What a service asks a provider for. */
export interface MachineIdRequest {
  readonly range: MachineIdRange;
  readonly genMethod: number;
  readonly type: number;
}

/** A machine id held for the life of a service; one that can be lost fences through `assertValid`. */
export interface MachineIdLease {
  readonly machineId: number;
  /** Unix ms; nothing may be issued before it (e.g. a previous owner's time mark). */
  readonly notBeforeMs?: number;
  /** Throws a VestaError (e.g. MACHINE_ID_LEASE_LOST) while issuing is not safe. Must be cheap. */
  assertValid?(): void;
  /** Told the time high-water mark (Unix ms) whenever the service raises it. */
  onHighWaterMark?(markMs: number): void;
  release?(): Promise<void>;
}

/** Where machine ids come from: configuration, an IP list, this host's address, ZooKeeper... */
export interface MachineIdProvider {
  acquire(request: MachineIdRequest): Promise<MachineIdLease>;
}

/** Throws MACHINE_ID_OUT_OF_RANGE unless `machineId` is a whole number in `range`. */
export function checkMachineIdInRange(
  machineId: unknown,
  range: MachineIdRange,
  what = 'machine id',
): number {
  const id = typeof machineId === 'number' ? machineId : NaN;
  if (Number.isInteger(id) && id >= range.min && id <= range.max) return id;
  throw new VestaError(
    'MACHINE_ID_OUT_OF_RANGE',
    `${what} must be a whole number from ${range.min} to ${range.max}, got ${String(machineId)}`,
    { details: { machineId: typeof machineId === 'number' ? id : String(machineId), ...range } },
  );
}

/** A machine id from configuration. Out of the mode's range: MACHINE_ID_OUT_OF_RANGE, never masked. */
export class StaticMachineIdProvider implements MachineIdProvider {
  constructor(readonly machineId: number) {}

  async acquire(request: MachineIdRequest): Promise<MachineIdLease> {
    return { machineId: checkMachineIdInRange(this.machineId, request.range) };
  }
}
