import { createServer } from 'node:http';
import express from 'express';

/**
 * The peer of Vesta inside express: a plain express 5 app answering `/genid` with a constant
 * JSON body (an id as a string, as Vesta answers it), express's own floor, on a free port.
 */
const app = express();
app.set('etag', false);
app.set('x-powered-by', false);
const body = JSON.stringify({ id: '1234567890123456789' });
app.get('/genid', (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
});
const server = createServer(app);
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' && address !== null ? address.port : 0 })}\n`,
  );
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
