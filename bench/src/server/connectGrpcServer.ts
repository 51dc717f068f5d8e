/**
 * Benchmark fixture: `vesta.v1.Vesta/GenId` served by Connect for Node (`@connectrpc/connect-node`
 * on a `node:http2` server, gRPC protocol) over an id service like `vestaGrpcServer.ts`'s (machine id 1001): the
 * same work per call as Vesta's grpc-js handler (generator lookup, `genId`), with Connect's
 * routing, framing and protobuf-es encoding. Prints {"grpcPort":n}, serves until SIGTERM.
 */
import { createServer } from 'node:http2';
import { create, createFileRegistry, fromBinary, type DescService } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { loadSync } from '@grpc/proto-loader';
import { VESTA_PROTO_DIR } from '@vesta/grpc';
import { serveFixture, startFixtureIdServer } from './http2Fixture.js';

// The .proto's descriptors as proto-loader compiles them, for protobuf-es's registry.
const loaded = loadSync('vesta/v1/vesta.proto', { includeDirs: [VESTA_PROTO_DIR] });
const { GenId } = loaded['vesta.v1.Vesta'] as unknown as {
  GenId: { requestType: { fileDescriptorProtos: Buffer[] } };
};
const files = GenId.requestType.fileDescriptorProtos.map((b) =>
  fromBinary(FileDescriptorProtoSchema, b),
);
const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: files }));
const Vesta = registry.getService('vesta.v1.Vesta') as DescService;

const server = await startFixtureIdServer(1001);
const service = server.service;
const handler = connectNodeAdapter({
  grpc: true,
  grpcWeb: false,
  connect: false,
  routes: (router) =>
    router.service(Vesta, {
      genId: async (request: { generator: string }) => {
        const generator =
          request.generator === '' ? service : server.generators.get(request.generator);
        return { id: await generator.genId() };
      },
    } as never),
});
serveFixture(createServer(handler), () => server.close());
