import { createServer } from 'node:http';
import express from 'express';
import { createRestApp, createRestIdService, createRestMiddleware } from '@vesta/rest';

/**
 * The REST API in a user's express app with the fast path (`createRestMiddleware`), same id
 * service settings as `vestaServer.ts`, on a free port. VESTA_BENCH_FAST_PATH=inside mounts it
 * as the app's first middleware (express's own routing still runs); `ahead` has the node:http
 * server try it before handing the request to express.
 */
const service = await createRestIdService({ machineId: 1023, maxBatch: 10_000 });
const fast = createRestMiddleware({ service });
const app = express();
const ahead = process.env.VESTA_BENCH_FAST_PATH === 'ahead';
if (!ahead) app.use(fast);
app.use(createRestApp({ service }));
const server = createServer(ahead ? (req, res) => fast(req, res, () => app(req, res)) : app);
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' && address !== null ? address.port : 0 })}\n`,
  );
});
process.on('SIGTERM', () => server.close(() => void service.close().then(() => process.exit(0))));
