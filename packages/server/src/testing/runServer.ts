/**
 * A test fixture: starts an id server from the JSON options in argv[2] and prints
 * `READY <port>` once it listens. SIGTERM closes it gracefully. Tests run it in a child
 * process so they can SIGKILL it for real.
 */
import { silentLogger } from '@vesta/core';
import { startIdServer } from '../server/startIdServer.js';

const options = JSON.parse(process.argv[2] ?? '{}') as Record<string, unknown>;
const server = await startIdServer({ logger: silentLogger, ...options });
process.stdout.write(`READY ${server.address.port}\n`);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
