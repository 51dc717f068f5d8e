/**
 * Benchmark fixture: `vesta.v1.Vesta/GenId` on a lean unary path of our own on `node:http2`
 * (what a hand-written gRPC server would cost): the request's frame read, its `generator` field
 * decoded, `genId()` of an id service like `vestaGrpcServer.ts`'s (machine id 1002), the reply's
 * frame and trailers written; no other method, no deadlines, metadata or compression. Prints
 * {"grpcPort":n}, serves until SIGTERM.
 */
import { constants, createServer } from 'node:http2';
import { answerUnary, serveFixture, startFixtureIdServer } from './http2Fixture.js';

const server = await startFixtureIdServer(1002);
const service = server.service;
/** GenIdRequest's `generator` (field 1, a string) from the request's one gRPC frame. */
function generatorOf(frame: Buffer): string {
  if (frame.length <= 5 || frame[5] !== 0x0a) return '';
  return frame.toString('utf8', 7, 7 + (frame[6] ?? 0));
}
const http2 = createServer();
http2.on('stream', (stream, headers) => {
  if (headers[constants.HTTP2_HEADER_PATH] !== '/vesta.v1.Vesta/GenId') {
    stream.respond(
      { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '12' },
      { endStream: true },
    );
    return;
  }
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => {
    const name = generatorOf(Buffer.concat(chunks));
    const generator = name === '' ? service : server.generators.get(name);
    void generator.genId().then((id) => {
      // One uncompressed frame of 9 bytes: GenIdResponse's field 1, fixed64.
      const frame = Buffer.from([0, 0, 0, 0, 9, 0x09, 0, 0, 0, 0, 0, 0, 0, 0]);
      frame.writeBigUInt64LE(id, 6);
      answerUnary(stream, frame);
    });
  });
});
serveFixture(http2, () => server.close());
