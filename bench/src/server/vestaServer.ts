/**
 * Benchmark fixture: a central id server on a free port (machine id `$VESTA_BENCH_MACHINE_ID`,
 * else 1000); prints {"port":n} then serves until SIGTERM.
 */
import { silentLogger } from '@vesta/core';
import { startIdServer } from '@vesta/server';

const server = await startIdServer({
  port: 0,
  machineId: Number(process.env['VESTA_BENCH_MACHINE_ID'] ?? 1000),
  stateDir: false,
  logger: silentLogger,
  maxBatch: 100_000,
});
console.log(JSON.stringify({ port: server.address.port }));
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
