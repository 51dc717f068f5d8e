import cluster from 'node:cluster';
import { VestaError } from '@vesta/core';
import { WORKER_INDEX_ENV } from './cluster/clusterMessages.js';
import type { RestCluster } from './cluster/RestCluster.js';
import {
  resolveRestClusterOptions,
  type RestClusterOptions,
} from './cluster/RestClusterOptions.js';
import { runClusterPrimary } from './cluster/runClusterPrimary.js';
import { runClusterWorker } from './cluster/runClusterWorker.js';

/**
 * Serves the REST API from several processes sharing one port (node:cluster), each issuing
 * under a machine id of its own: `min + i` of `machineIds` for worker `i`, or the provider
 * `machineIdProvider(i)` builds, or the one of the module `machineIdModule(i)` builds (a
 * coordinator's). Every worker has its own id service, host lock and state-dir
 * mark; `/health` and `/metrics` answer for every worker, whichever answers the request.
 *
 * node:cluster runs the calling script again in every worker: call `startRestCluster` with the
 * same options on every run. In the primary it resolves once every worker listens; in a worker
 * it serves until the primary stops it and never resolves.
 *
 * A worker that dies after it served is started again on its own machine id, once its process
 * is gone (a crash never hands its id to another worker); more than `maxRestartsPerMinute`
 * deaths of one worker, or a replacement that cannot start, stops the whole cluster and
 * rejects `stopped` with the coded error. Signals are the caller's to wire to `close()`.
 *
 * @example
 * const rest = await startRestCluster({ machineIds: { min: 1020, max: 1023 }, port: 8080 });
 * process.once('SIGTERM', () => void rest.close().then(() => process.exit(0)));
 */
export async function startRestCluster(options: RestClusterOptions): Promise<RestCluster> {
  const resolved = resolveRestClusterOptions(options);
  if (cluster.isPrimary) return runClusterPrimary(resolved);
  const index = Number(process.env[WORKER_INDEX_ENV]);
  if (!Number.isInteger(index) || index < 0 || index >= resolved.workers) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `startRestCluster in a cluster worker it did not fork (${WORKER_INDEX_ENV}=${String(process.env[WORKER_INDEX_ENV])})`,
    );
  }
  return runClusterWorker(index, resolved);
}
