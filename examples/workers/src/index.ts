/**
 * Vesta across worker threads: four workers issue ids under one machine id from one shared
 * state (the 'atomic' populator over a SharedArrayBuffer), and the main thread checks that no
 * id was issued twice. Run it with `sh scripts/pnpm.sh --filter @vesta/example-workers start`.
 */
import { Worker } from 'node:worker_threads';
import { createEmbeddedIdService, type WorkerIdServiceConfig } from '@vesta/embedded';

const WORKERS = 4;
const PER_WORKER = Number(process.env.IDS_PER_WORKER ?? 250_000);

/**
 * Starts `worker.ts`. On Node 20 tsx's loader is registered in the main thread only (and
 * `execArgv: ['--import', 'tsx']` does not reach a worker), so the worker registers it first.
 * Compiled to JavaScript, this is simply `new Worker(new URL('./worker.js', import.meta.url), ...)`.
 */
function startWorker(workerData: { config: WorkerIdServiceConfig; count: number }): Worker {
  const entry = new URL('./worker.ts', import.meta.url).href;
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(bootstrap, { eval: true, workerData });
}

function issueIn(config: WorkerIdServiceConfig): Promise<BigUint64Array> {
  return new Promise((resolve, reject) => {
    const worker = startWorker({ config, count: PER_WORKER });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once(
      'exit',
      (code) => code !== 0 && reject(new Error(`a worker exited with code ${code}`)),
    );
  });
}

const ids = await createEmbeddedIdService({ machineId: 8, populator: 'atomic' });
try {
  // workerConfig() is structured-cloneable: the SharedArrayBuffer is shared, not copied.
  const config = ids.workerConfig();
  const batches = await Promise.all(Array.from({ length: WORKERS }, () => issueIn(config)));

  const all = new BigUint64Array(WORKERS * PER_WORKER);
  batches.forEach((batch, i) => all.set(batch, i * PER_WORKER));
  all.sort();
  let duplicates = 0;
  for (let i = 1; i < all.length; i++) if (all[i] === all[i - 1]) duplicates++;

  console.log(`${WORKERS} workers issued ${all.length} ids under machine ${ids.info().machine}`);
  console.log(`first ${all[0]}, last ${all[all.length - 1]}`);
  console.log(duplicates === 0 ? 'no duplicate' : `${duplicates} duplicates`);
  if (duplicates > 0) process.exitCode = 1;
} finally {
  await ids.close();
}
