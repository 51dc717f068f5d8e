import type {
  IdGeneratorInfo,
  IdGeneratorsOptions,
  IdMetaSpec,
  IdMetaWidths,
  IdService,
  IdServiceOptions,
  IdType,
  PopulatorKind,
  SyncIdService,
} from '@vesta/core';

/** Options of {@link createEmbeddedIdService}: the core's less what the mode fixes, plus where its range ends. */
export interface EmbeddedIdServiceOptions extends Omit<
  IdServiceOptions,
  'genMethod' | 'machineIdRange'
> {
  /**
   * The first machine id of the server range: embedded instances use 0 .. this - 1.
   * @default `machineIdRanges(layout).server.min` (924 for Vesta's layouts)
   */
  readonly serverMachineIdStart?: number;
  /** Named generators (`generator('orders')`), sharing this service's unless given their own. @default only `default` */
  readonly generators?: IdGeneratorsOptions;
}

/** An embedded id service (genMethod 0) of the 'lock' populator: asynchronous only. */
export interface AsyncEmbeddedIdService extends IdService {
  /** With populator 'atomic': what a worker thread passes to `attachEmbeddedIdService`; else INVALID_OPTIONS. */
  workerConfig(): WorkerIdServiceConfig;
  /** A named generator (`default` is this one); UNKNOWN_GENERATOR, INVALID_ARGUMENT. Its `close()` does nothing. */
  generator(name: string): IdService;
  /** Every name, with its machine id, type and the ids issued under it. */
  generators(): IdGeneratorInfo[];
}

/** An embedded id service that also issues synchronously ('sync', 'atomic'; on 'lock' INVALID_OPTIONS). */
export interface EmbeddedIdService extends SyncIdService, AsyncEmbeddedIdService {
  /** Busy-waits when a unit's sequence is used up. */
  genUuidSync(): string;
}

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
