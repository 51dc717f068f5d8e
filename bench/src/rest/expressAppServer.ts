import { createServer } from 'node:http';
import { createRestApp, createRestIdService } from '@vesta/rest';

/**
 * The REST API as an embedder gets it: `createRestApp` (every request through express) on a
 * plain node:http server, same id service settings as `vestaServer.ts`, on a free port.
 */
const service = await createRestIdService({ machineId: 1023, maxBatch: 10_000 });
const server = createServer(createRestApp({ service }));
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' && address !== null ? address.port : 0 })}\n`,
  );
});
process.on('SIGTERM', () => server.close(() => void service.close().then(() => process.exit(0))));
