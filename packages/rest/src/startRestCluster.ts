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
 * Serves the REST API from several processes on one port (node:cluster), each worker under a
 * machine id of its own. node:cluster runs the calling script again in every worker: call it with
 * the same options on every run. In the primary it resolves once every worker listens; in a worker
 * it never does. A dead worker restarts on its own machine id. Signals are the caller's to wire.
 * @example
 * const rest = await startRestCluster({ machineIds: { min: 1020, max: 1023 }, port: 8080 });
 * process.once('SIGTERM', () => void rest.close().then(() => process.exit(0)));
 */
export async function startRestCluster(options: RestClusterOptions): Promise<RestCluster> {
  const resolved = resolveRestClusterOptions(options);
  if (cluster.isPrimary) return runClusterPrimary(resolved);
  const index = Number(process.env[WORKER_INDEX_ENV]);
  if (!Number.isInteger(index) || index < 0 || index >= resolved.workers) {
    const why = `startRestCluster in a cluster worker it did not fork (${WORKER_INDEX_ENV}=${String(process.env[WORKER_INDEX_ENV])})`;
    throw new VestaError('INVALID_OPTIONS', why);
  }
  return runClusterWorker(index, resolved);
}
