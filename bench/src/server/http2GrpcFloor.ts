/**
 * Benchmark fixture: the floor of any gRPC server on node:http2, the one under grpc-js and
 * Connect for Node alike: every unary call answered with a constant 9-byte message (a GenId
 * reply) and `grpc-status: 0`, with no gRPC library, no routing and no id service. Prints
 * {"grpcPort":n}, serves until SIGTERM.
 */
import { createServer, constants } from 'node:http2';

const reply = Buffer.from([0, 0, 0, 0, 9, 0x09, 1, 2, 3, 4, 5, 6, 7, 8]);
const server = createServer();
server.on('stream', (stream) => {
  stream.on('data', () => undefined);
  stream.on('end', () => {
    stream.respond(
      { [constants.HTTP2_HEADER_STATUS]: 200, 'content-type': 'application/grpc' },
      { waitForTrailers: true },
    );
    stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    stream.end(reply);
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  console.log(JSON.stringify({ port, grpcPort: port }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
