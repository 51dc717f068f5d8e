import cluster from 'node:cluster';
import { createIdService } from '../service/createIdService.js';
import { silentLogger } from '../logging/Logger.js';

/*
 * Two node:cluster workers of one primary start an id service on the same machine id (as pm2's
 * cluster mode or `vesta rest --workers` would). Prints, sorted, what each worker got: one
 * must hold the id, the other be refused with MACHINE_ID_IN_USE.
 */
if (cluster.isPrimary) {
  const results: string[] = [];
  for (let i = 0; i < 2; i++) cluster.fork();
  cluster.on('message', (_worker, message: string) => {
    results.push(message);
    if (results.length < 2) return;
    console.log(JSON.stringify(results.sort()));
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
  });
} else {
  try {
    await createIdService({ machineId: 41, logger: silentLogger });
    process.send?.('issuing');
  } catch (error) {
    process.send?.((error as { code?: string }).code ?? 'no code');
  }
  // Keep the service (and its lock) until the primary has both answers.
  setInterval(() => undefined, 1000);
}
