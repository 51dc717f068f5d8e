import type { IdMetaSpec, IdMetaWidths, IdType, PopulatorKind } from '@vesta/core';

/** A structured-cloneable description of a service that worker threads can attach to. */
export interface WorkerIdServiceConfig {
  readonly buffer: SharedArrayBuffer;
  readonly machineId: number;
  readonly type: IdType;
  readonly version: number;
  readonly epochMs: number;
  readonly layout: IdMetaWidths;
  /** The full spec of the layout (field order; named after its preset, if any). */
  readonly layoutSpec: IdMetaSpec;
  readonly populator: PopulatorKind;
  readonly rollbackToleranceMs: number;
  readonly stateDir: string | undefined;
  readonly markWindowMs: number;
  readonly maxBatch: number;
  /** Every thread borrows time as far as the owner does. */
  readonly maxLeadMs: number;
  readonly serverMachineIdStart: number;
}
