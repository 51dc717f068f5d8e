import type { IdGeneratorInfo, IdService, SyncIdService } from '@vesta/core';
import type { WorkerIdServiceConfig } from './WorkerIdServiceConfig.js';

/** An embedded id service (genMethod 0) of the 'lock' populator: asynchronous only. */
export interface AsyncEmbeddedIdService extends IdService {
  /**
   * With populator 'atomic': what a worker thread passes to `attachEmbeddedIdService` to issue
   * under this machine id from the same shared state. Other populators: INVALID_OPTIONS.
   */
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
