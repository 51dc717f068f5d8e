/**
 * Benchmark fixture: a central id server (machine id 1000, standard max-peak layout) with the
 * gRPC service beside it over the same id service; prints {"port":tcp,"grpcPort":n} then serves
 * until SIGTERM.
 */
import { silentLogger } from '@vesta/core';
import { startGrpcServer } from '@vesta/grpc';
import { startIdServer } from '@vesta/server';

const server = await startIdServer({
  port: 0,
  machineId: 1000,
  stateDir: false,
  logger: silentLogger,
  maxBatch: 100_000,
});
const grpc = await startGrpcServer({
  service: server.service,
  generators: server.generators,
  port: 0,
  logger: silentLogger,
});
console.log(JSON.stringify({ port: server.address.port, grpcPort: grpc.address.port }));
process.on('SIGTERM', () => {
  void grpc
    .close()
    .then(() => server.close())
    .then(() => process.exit(0));
});
