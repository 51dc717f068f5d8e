import type { Logger } from '@vesta/core';
import { importOptional } from '@vesta/core/kit';
import type * as GrpcModule from '@vesta/grpc';
import { startIdServer, type IdServerHandle } from '@vesta/server';
import { closeOnSignals, prepareServer, startServing } from './serverLifecycle.js';
import type { Flags } from './addSchemaFlags.js';
import type { ServiceFlagValues } from './serviceFlags.js';
import { PORT, wholeFlag } from './wholeFlag.js';

/** The machine id of a single central server when none is given: the top of the server range. */
export const DEFAULT_SERVER_MACHINE_ID = 1023;

type GrpcPackage = typeof GrpcModule;

/** @vesta/grpc, an optional package: PACKAGE_MISSING when it is not installed. */
function loadGrpc(): Promise<GrpcPackage> {
  return importOptional('@vesta/grpc', () => import('@vesta/grpc'), '--grpc-port needs');
}

/** The gRPC listener beside the TCP one, over the same service, when `--grpc-port` is given. */
async function startGrpcBeside(
  { routeGrpcLogging, startGrpcServer }: GrpcPackage,
  server: IdServerHandle,
  port: number,
  options: { host: string; authToken: string | undefined },
  logger: Logger,
): Promise<{ port: number; close(): Promise<void> }> {
  // grpc-js writes its own lines to stderr, where the CLI promises one line when it stops.
  routeGrpcLogging(logger);
  const grpc = await startGrpcServer({
    service: server.service,
    generators: server.generators,
    port,
    host: options.host,
    ...(options.authToken === undefined ? {} : { authToken: options.authToken }),
    metrics: server.metrics,
    logger,
  });
  return { port: grpc.address.port, close: () => grpc.close() };
}

/** What `vesta server` runs once its flags are checked (imported only then). */
export async function serveIdServer(flags: Flags, values: ServiceFlagValues): Promise<void> {
  const { logger, options, parts } = await prepareServer(
    'vesta-server',
    flags,
    values,
    DEFAULT_SERVER_MACHINE_ID,
  );
  const metricsPort = wholeFlag('--metrics-port', flags.metricsPort, PORT);
  const grpcPort = wholeFlag('--grpc-port', flags.grpcPort, PORT);
  // Loaded before the server starts: a missing package refuses the start, not half of it.
  const grpcPackage = grpcPort === undefined ? undefined : await loadGrpc();
  const listener = { ...options, ...(metricsPort === undefined ? {} : { metricsPort }) };
  const server = await startServing({ logger, parts }, flags, (shared) =>
    startIdServer({ ...listener, ...shared }, parts),
  );
  // Started last, so closed first: gRPC, then the TCP server (its mark persisted), the segments.
  const grpc =
    grpcPackage === undefined || grpcPort === undefined
      ? undefined
      : await parts.start('grpc', () =>
          startGrpcBeside(grpcPackage, server, grpcPort, options, logger),
        );
  // Before the 'listening' line: whoever waits for it may signal at once.
  closeOnSignals(server, logger);
  logger.info(
    {
      url: server.url,
      port: server.address.port,
      metricsPort: server.metricsAddress?.port ?? null,
      grpcPort: grpc?.port ?? null,
    },
    `vesta server listening on ${server.url}`,
  );
}
