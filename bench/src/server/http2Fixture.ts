/**
 * What the `node:http2` gRPC fixtures share: their id server, a unary answer, and serving on a
 * free loopback port until SIGTERM.
 */
import { constants, type Http2Server, type ServerHttp2Stream } from 'node:http2';
import { silentLogger } from '@vesta/core';
import { startIdServer } from '@vesta/server';

/** A central id server (standard layout, no state dir) whose service a fixture answers from. */
export function startFixtureIdServer(machineId: number) {
  return startIdServer({ port: 0, machineId, stateDir: false, logger: silentLogger });
}

/** Answers a unary call: `frame` (a gRPC message with its 5-byte prefix), then status 0. */
export function answerUnary(stream: ServerHttp2Stream, frame: Buffer): void {
  stream.respond(
    { [constants.HTTP2_HEADER_STATUS]: 200, 'content-type': 'application/grpc' },
    { waitForTrailers: true },
  );
  stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
  stream.end(frame);
}

/** Listens on 127.0.0.1, prints {"port":n,"grpcPort":n}, and on SIGTERM closes, then `close()`s. */
export function serveFixture(http2: Http2Server, close: () => Promise<void> = async () => {}) {
  http2.listen(0, '127.0.0.1', () => {
    const address = http2.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    console.log(JSON.stringify({ port, grpcPort: port }));
  });
  process.on('SIGTERM', () => {
    http2.close();
    void close().then(() => process.exit(0));
  });
}
