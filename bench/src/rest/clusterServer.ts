import { availableParallelism } from 'node:os';
import { silentLogger } from '@vesta/core';
import { startRestCluster } from '@vesta/rest';

/**
 * The REST id server under benchmark from VESTA_BENCH_WORKERS processes (default: the cores
 * available) on one port, the settings of `vestaServer.ts` otherwise; node:cluster runs this
 * script again in each worker, where `startRestCluster` serves and never resolves.
 */
const workers = Number(process.env.VESTA_BENCH_WORKERS ?? availableParallelism());
const rest = await startRestCluster({
  workers,
  machineIds: { min: 1023 - workers + 1, max: 1023 },
  stateDir: false,
  logger: silentLogger,
  port: 0,
  maxBatch: 10_000,
});
process.stdout.write(
  `${JSON.stringify({ port: rest.port, pids: rest.workers().map((w) => w.pid) })}\n`,
);
process.on('SIGTERM', () => void rest.close().then(() => process.exit(0)));
