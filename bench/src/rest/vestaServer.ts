import { silentLogger } from '@vesta/core';
import { startRestServer } from '@vesta/rest';

/** The REST id server under benchmark: defaults of `vesta rest`, on a free port, no state dir. */
const server = await startRestServer({
  stateDir: false,
  logger: silentLogger,
  machineId: 1023,
  port: 0,
  maxBatch: 10_000,
});
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
