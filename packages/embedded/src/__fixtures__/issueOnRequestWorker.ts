/**
 * Test fixture: a worker thread that attaches to the service of `workerData.config`, posts
 * "ready", then answers every message with one id from genIdSync (as a decimal string) or the
 * code of the error it raised.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { VestaError } from '@vesta/core';
import { attachEmbeddedIdService } from '../attachEmbeddedIdService.js';
import type { WorkerIdServiceConfig } from '../EmbeddedIdService.js';

const { config } = workerData as { config: WorkerIdServiceConfig };
const service = await attachEmbeddedIdService(config);
parentPort?.on('message', () => {
  try {
    parentPort?.postMessage({ id: service.genIdSync().toString() });
  } catch (error) {
    parentPort?.postMessage({ code: VestaError.is(error) ? error.code : String(error) });
  }
});
parentPort?.postMessage('ready');
