import type { IdMetaSpec, IdMetaWidths, IdType, PopulatorKind } from '@vesta/core';

/** A structured-cloneable description of a service worker threads can attach to. */
export interface WorkerIdServiceConfig {
  readonly buffer: SharedArrayBuffer;
  readonly machineId: number;
  readonly type: IdType;
  readonly version: number;
  readonly epochMs: number;
  readonly layout: IdMetaWidths;
  readonly layoutSpec: IdMetaSpec;
  readonly populator: PopulatorKind;
  readonly rollbackToleranceMs: number;
  readonly stateDir: string | undefined;
  readonly markWindowMs: number;
  readonly maxBatch: number;
  readonly maxLeadMs: number;
  readonly serverMachineIdStart: number;
}
