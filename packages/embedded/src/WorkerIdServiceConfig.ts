import type { IdLayoutSpec, IdType, PopulatorKind } from '@vesta/core';

/** A structured-cloneable description of a service that worker threads can attach to. */
export interface WorkerIdServiceConfig {
  readonly buffer: SharedArrayBuffer;
  readonly machineId: number;
  readonly type: IdType;
  readonly version: number;
  readonly epochMs: number;
  /** The full spec of the layout (named after its preset, if any). */
  readonly layout: IdLayoutSpec;
  readonly populator: PopulatorKind;
  readonly rollbackToleranceMs: number;
  readonly stateDir: string | undefined;
  readonly markWindowMs: number;
  readonly maxBatch: number;
  readonly serverMachineIdStart: number;
}
