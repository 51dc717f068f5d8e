/** Benchmark baseline: a raw node:net server echoing 8-byte frames; prints {"port":n}. */
import { createServer } from 'node:net';

const server = createServer({ noDelay: true }, (socket) => {
  socket.on('data', (chunk: Buffer) => socket.write(chunk));
  socket.on('error', () => undefined);
});
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: (server.address() as { port: number }).port }));
});
process.on('SIGTERM', () => process.exit(0));
