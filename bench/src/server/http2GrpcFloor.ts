/**
 * Benchmark fixture: the floor of any gRPC server on node:http2, the one under grpc-js and
 * Connect for Node alike: every unary call answered with a constant 9-byte message (a GenId
 * reply) and `grpc-status: 0`, with no gRPC library, no routing and no id service. Prints
 * {"grpcPort":n}, serves until SIGTERM.
 */
import { createServer } from 'node:http2';
import { answerUnary, serveFixture } from './http2Fixture.js';

const reply = Buffer.from([0, 0, 0, 0, 9, 0x09, 1, 2, 3, 4, 5, 6, 7, 8]);
const server = createServer();
server.on('stream', (stream) => {
  stream.on('data', () => undefined);
  stream.on('end', () => answerUnary(stream, reply));
});
serveFixture(server);
