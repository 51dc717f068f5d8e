import { createServer } from 'node:http';

/** The peer of the REST benchmark: a bare node:http server returning a counter as JSON. */
let counter = 0n;
const server = createServer((_req, res) => {
  counter++;
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
  res.end(`{"id":"${counter}"}`);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' && address !== null ? address.port : 0 })}\n`,
  );
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
