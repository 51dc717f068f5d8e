import { VestaError, type Clock, type Logger } from '@vesta/core';
import { createEmbeddedIdService } from './createEmbeddedIdService.js';
import type { EmbeddedIdService, WorkerIdServiceConfig } from './EmbeddedIdService.js';

/** What a worker may set itself: a clock and a logger cannot cross a thread. */
export interface AttachOptions {
  readonly clock?: Clock;
  readonly logger?: Logger;
}

/** In a worker thread: a service on the shared state of `workerConfig()`'s, same machine id, no collisions. */
export async function attachEmbeddedIdService(
  config: WorkerIdServiceConfig,
  options: AttachOptions = {},
): Promise<EmbeddedIdService> {
  if (!((config as Partial<WorkerIdServiceConfig> | null)?.buffer instanceof SharedArrayBuffer)) {
    const why = 'attachEmbeddedIdService needs the config from workerConfig()';
    throw new VestaError('INVALID_OPTIONS', why);
  }
  // `layout` and `populator` of the config are overridden: the spec rebuilds the layout.
  const { buffer, epochMs, layoutSpec, stateDir, ...same } = config;
  return createEmbeddedIdService({
    ...same,
    epoch: epochMs,
    layout: layoutSpec,
    populator: 'atomic',
    sharedState: { buffer },
    ...(stateDir === undefined ? {} : { stateDir }),
    ...options,
  });
}
