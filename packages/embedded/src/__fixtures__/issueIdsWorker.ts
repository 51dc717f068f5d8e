/**
 * Test fixture: a worker thread that attaches to the service of `workerData.config`, issues
 * `workerData.count` ids with genIdSync, and posts them back (transferred) with how many were
 * not above the one before.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { attachEmbeddedIdService } from '../attachEmbeddedIdService.js';
import type { WorkerIdServiceConfig } from '../EmbeddedIdService.js';

const { config, count } = workerData as { config: WorkerIdServiceConfig; count: number };
const service = await attachEmbeddedIdService(config);
const ids = new BigUint64Array(count);
let disorder = 0;
let previous = -1n;
for (let i = 0; i < count; i++) {
  const id = service.genIdSync();
  if (id <= previous) disorder++;
  ids[i] = id;
  previous = id;
}
const machine = service.expId(ids[0] ?? 0n).machine;
await service.close();
parentPort?.postMessage({ ids, disorder, machine }, [ids.buffer]);
