import { VestaError, type Clock, type Logger } from '@vesta/core';
import { createEmbeddedIdService } from './createEmbeddedIdService.js';
import type { EmbeddedIdService, WorkerIdServiceConfig } from './EmbeddedIdService.js';

/** What a worker may set itself: a clock and a logger cannot cross a thread. */
export interface AttachOptions {
  readonly clock?: Clock;
  readonly logger?: Logger;
}

/**
 * In a worker thread: a service on the shared state of the one that made `config`
 * (`workerConfig()`), under the same machine id without collisions.
 */
export async function attachEmbeddedIdService(
  config: WorkerIdServiceConfig,
  options: AttachOptions = {},
): Promise<EmbeddedIdService> {
  if (!((config as Partial<WorkerIdServiceConfig> | null)?.buffer instanceof SharedArrayBuffer)) {
    const why = 'attachEmbeddedIdService needs the config from workerConfig()';
    throw new VestaError('INVALID_OPTIONS', why);
  }
  return createEmbeddedIdService({
    machineId: config.machineId,
    type: config.type,
    version: config.version,
    epoch: config.epochMs,
    layout: config.layoutSpec,
    populator: 'atomic',
    sharedState: { buffer: config.buffer },
    rollbackToleranceMs: config.rollbackToleranceMs,
    ...(config.stateDir === undefined ? {} : { stateDir: config.stateDir }),
    markWindowMs: config.markWindowMs,
    maxBatch: config.maxBatch,
    maxLeadMs: config.maxLeadMs,
    serverMachineIdStart: config.serverMachineIdStart,
    ...options,
  });
}
