import { Server, ServerCredentials } from '@grpc/grpc-js';
import { silentLogger, VestaError } from '@vesta/core';
import { HealthImplementation, type ServingStatus } from 'grpc-health-check';
import { grpcServerOptions, type GrpcServerOptions } from './GrpcServerOptions.js';
import { vestaHandlers } from './vestaHandlers.js';
import { VESTA_SERVICE_NAME, vestaServiceDefinition } from './vestaProto.js';

/** A running gRPC server. */
export interface GrpcServerHandle {
  /** The real port when 0 was asked. */
  readonly address: { readonly host: string; readonly port: number };
  /** `host:port`, as a gRPC client's target. */
  readonly url: string;
  /** Reports NOT_SERVING, lets calls finish for `shutdownGraceMs`, cuts the rest; the service stays open. */
  close(): Promise<void>;
}

/**
 * Serves `vesta.v1.Vesta` over an id service, and `grpc.health.v1.Health` (SERVING while the
 * service can issue). Plaintext HTTP/2: put TLS in front. LISTEN_FAILED when it cannot bind.
 * @example
 * const grpc = await startGrpcServer({ service: ids, port: 7071 });
 */
export async function startGrpcServer(options: GrpcServerOptions): Promise<GrpcServerHandle> {
  const o = grpcServerOptions.resolve(options);
  const logger = o.logger ?? silentLogger;
  const server = new Server({ 'grpc.max_concurrent_streams': o.maxConcurrentStreams });
  server.addService(vestaServiceDefinition(), vestaHandlers(o));
  const health = new HealthImplementation({ '': 'SERVING', [VESTA_SERVICE_NAME]: 'SERVING' });
  health.addToServer(server);
  // Watch streams get every setStatus: send only changes, as grpc.health.v1 has it.
  let reported: ServingStatus = 'SERVING';
  const report = (status: ServingStatus): void => {
    if (status === reported) return;
    reported = status;
    health.setStatus('', status);
    health.setStatus(VESTA_SERVICE_NAME, status);
  };
  const hostPort = (port: number): string =>
    `${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}`;
  const target = hostPort(o.port);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(target, ServerCredentials.createInsecure(), (error, bound) => {
      if (error === null) return resolve(bound);
      const why = `gRPC cannot listen on ${target}: ${error.message}`;
      reject(new VestaError('LISTEN_FAILED', why, { cause: error }));
    }),
  );
  const refresh = (): void => report(o.service.health().ok ? 'SERVING' : 'NOT_SERVING');
  refresh();
  const timer = setInterval(refresh, o.healthIntervalMs).unref();
  logger.info({ host: o.host, port }, `gRPC listening on ${o.host}:${port}`);

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      clearInterval(timer);
      report('NOT_SERVING');
      const graceful = new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
      const cut = setTimeout(() => server.forceShutdown(), o.shutdownGraceMs);
      await graceful;
      clearTimeout(cut);
    })());

  return Object.freeze({ address: { host: o.host, port }, url: hostPort(port), close });
}
