/**
 * Test fixture: a worker thread that attaches to the service of `workerData.config` on a wall
 * clock the test sets in `workerData.clock` (Unix ms in a shared 64-bit cell), posts "ready",
 * then answers each message (a count) with up to that many ids from genIdSync and the code of
 * the error that stopped it early, if one did. Closes and exits on 'close'.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { VestaError } from '@vesta/core';
import { attachEmbeddedIdService } from '../attachEmbeddedIdService.js';
import type { WorkerIdServiceConfig } from '../EmbeddedIdService.js';

const { config, clock } = workerData as { config: WorkerIdServiceConfig; clock: SharedArrayBuffer };
const cell = new BigInt64Array(clock);
const service = await attachEmbeddedIdService(config, {
  clock: () => Number(Atomics.load(cell, 0)),
});
parentPort?.on('message', (message: number | 'close') => {
  if (message === 'close') {
    void service.close().then(() => parentPort?.close());
    return;
  }
  const ids: bigint[] = [];
  let code: string | undefined;
  try {
    for (let i = 0; i < message; i++) ids.push(service.genIdSync());
  } catch (error) {
    code = VestaError.is(error) ? error.code : String(error);
  }
  parentPort?.postMessage({ ids, code });
});
parentPort?.postMessage('ready');
