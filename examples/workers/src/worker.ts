/** One worker thread: attach to the main thread's service and issue `count` ids. */
import { parentPort, workerData } from 'node:worker_threads';
import { attachEmbeddedIdService, type WorkerIdServiceConfig } from '@vesta/embedded';

const { config, count } = workerData as { config: WorkerIdServiceConfig; count: number };
const ids = await attachEmbeddedIdService(config);
const issued = new BigUint64Array(count);
for (let i = 0; i < count; i++) issued[i] = ids.genIdSync();
await ids.close();
// Transferred, not copied: the buffer moves to the main thread.
parentPort?.postMessage(issued, [issued.buffer]);
