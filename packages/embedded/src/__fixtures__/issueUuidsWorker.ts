/**
 * Test fixture: a worker thread that attaches to the service of `workerData.config`, issues
 * `workerData.count` UUIDs with genUuidSync, and posts them back with how many were not above
 * the one before (as strings: their text order is their order).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { attachEmbeddedIdService } from '../attachEmbeddedIdService.js';
import type { WorkerIdServiceConfig } from '../EmbeddedIdService.js';

const { config, count } = workerData as { config: WorkerIdServiceConfig; count: number };
const service = await attachEmbeddedIdService(config);
const uuids = new Array<string>(count);
let disorder = 0;
let previous = '';
for (let i = 0; i < count; i++) {
  const uuid = service.genUuidSync();
  if (uuid <= previous) disorder++;
  uuids[i] = uuid;
  previous = uuid;
}
await service.close();
parentPort?.postMessage({ uuids, disorder });
