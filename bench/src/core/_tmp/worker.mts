import { parentPort, workerData } from 'node:worker_threads';
import { attachEmbeddedIdService } from '@vesta/embedded';
const s = await attachEmbeddedIdService(workerData.config);
const ids = new BigUint64Array(workerData.count);
const half = workerData.count >> 1;
for (let i = 0; i < half; i++) ids[i] = s.genIdSync();
let k = half;
while (k < workerData.count) { const b = await s.genIds(Math.min(777, workerData.count - k)); for (const id of b) ids[k++] = id; }
parentPort!.postMessage(ids);
