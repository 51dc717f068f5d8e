import type { SyncIdService } from '@vesta/core';
import type { WorkerIdServiceConfig } from './WorkerIdServiceConfig.js';

/** An embedded id service (genMethod 0). `genIdSync` throws INVALID_OPTIONS with the 'lock' populator. */
export interface EmbeddedIdService extends SyncIdService {
  /**
   * With populator 'atomic': what a worker thread needs to issue ids under this service's
   * machine id from the same shared state. Pass it in `workerData` or `postMessage`, and call
   * `attachEmbeddedIdService(config)` in the worker. Other populators: INVALID_OPTIONS.
   */
  workerConfig(): WorkerIdServiceConfig;
}
