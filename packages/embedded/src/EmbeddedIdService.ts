import type { IdGeneratorInfo, IdService, SyncIdService } from '@vesta/core';
import type { WorkerIdServiceConfig } from './WorkerIdServiceConfig.js';

/** An embedded id service (genMethod 0) of the 'lock' populator: it issues asynchronously only. */
export interface AsyncEmbeddedIdService extends IdService {
  /**
   * With populator 'atomic': what a worker thread needs to issue ids under this service's
   * machine id from the same shared state. Pass it in `workerData` or `postMessage`, and call
   * `attachEmbeddedIdService(config)` in the worker. Other populators: INVALID_OPTIONS.
   */
  workerConfig(): WorkerIdServiceConfig;
  /**
   * The id service of a named generator (`default` is this service): UNKNOWN_GENERATOR for a
   * name not configured (unless `generators.onDemand`), INVALID_ARGUMENT for a malformed one.
   * Its `close()` does nothing: closing this service closes every name.
   */
  generator(name: string): IdService;
  /** Every name, with its machine id, type and the ids issued under it. */
  generators(): IdGeneratorInfo[];
}

/**
 * An embedded id service (genMethod 0) that also issues synchronously (populators 'sync' and
 * 'atomic'). Called from JavaScript on a 'lock' service, `genIdSync` throws INVALID_OPTIONS.
 */
export interface EmbeddedIdService extends SyncIdService, AsyncEmbeddedIdService {
  /** One UUIDv7 (as `genUuid`), synchronously; busy-waits when a unit's sequence is used up. */
  genUuidSync(): string;
}
