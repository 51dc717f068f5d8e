import { Worker } from 'node:worker_threads';
import { createEmbeddedIdService } from '@vesta/embedded';
import { silentLogger } from '@vesta/core';
const WORKER = new URL('./worker.mts', import.meta.url).href;
const BOOT = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(WORKER)}); });`;
for (const type of ['min-granularity', 'max-peak'] as const) {
  const main = await createEmbeddedIdService({ machineId: 3, type, populator: 'atomic', logger: silentLogger });
  const config = main.workerConfig();
  const N = 400_000;
  const runs = [0, 1, 2].map(() => new Promise<BigUint64Array>((res, rej) => { const w = new Worker(BOOT, { eval: true, workerData: { config, count: N } }); w.once('message', res); w.once('error', rej); }));
  const mine = new BigUint64Array(N);
  for (let i = 0; i < N; i++) mine[i] = main.genIdSync();
  const all = [mine, ...(await Promise.all(runs))];
  let order = 0; for (const a of all) for (let i = 1; i < a.length; i++) if (a[i]! <= a[i - 1]!) order++;
  const merged = new BigUint64Array(all.reduce((n, a) => n + a.length, 0)); let o = 0; for (const a of all) { merged.set(a, o); o += a.length; }
  merged.sort(); let d = 0; for (let i = 1; i < merged.length; i++) if (merged[i] === merged[i - 1]) d++;
  console.log(type, 'ids', merged.length, 'dups', d, 'orderBreaks', order);
  await main.close();
}
