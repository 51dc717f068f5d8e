import { Server, ServerCredentials } from '@grpc/grpc-js';
import { silentLogger, VestaError } from '@vesta/core';
import { HealthImplementation, type ServingStatus } from 'grpc-health-check';
import { grpcServerOptions, type GrpcServerOptions } from './GrpcServerOptions.js';
import { vestaHandlers } from './vestaHandlers.js';
import { VESTA_SERVICE_NAME, vestaServiceDefinition } from './vestaProto.js';

/** A running gRPC server. */
export interface GrpcServerHandle {
  /** Where it listens (the real port when 0 was asked). */
  readonly address: { readonly host: string; readonly port: number };
  /** `host:port`, as a gRPC client's target. */
  readonly url: string;
  /**
   * Reports NOT_SERVING, stops taking calls, lets those running finish for up to
   * `shutdownGraceMs`, then cuts them. Does not close the id service (its owner does).
   * Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Serves `vesta.v1.Vesta` (the shipped `proto/vesta/v1/vesta.proto`) over an id service, and
 * the standard `grpc.health.v1.Health` (`""` and `vesta.v1.Vesta`: SERVING while the service can
 * issue, read again every `healthIntervalMs`). Plaintext HTTP/2 on `host` (loopback by
 * default): put TLS in front, as for the TCP protocol. LISTEN_FAILED when the port cannot be bound.
 *
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
  // Watch streams every setStatus: only a change is sent, as grpc.health.v1 has it.
  let reported: ServingStatus = 'SERVING';
  const report = (status: ServingStatus): void => {
    if (status === reported) return;
    reported = status;
    health.setStatus('', status);
    health.setStatus(VESTA_SERVICE_NAME, status);
  };
  const target = `${o.host.includes(':') ? `[${o.host}]` : o.host}:${o.port}`;
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(target, ServerCredentials.createInsecure(), (error, bound) => {
      if (error === null) resolve(bound);
      else {
        reject(
          new VestaError('LISTEN_FAILED', `gRPC cannot listen on ${target}: ${error.message}`, {
            cause: error,
          }),
        );
      }
    });
  });
  const refresh = (): void => report(o.service.health().ok ? 'SERVING' : 'NOT_SERVING');
  refresh();
  const timer = setInterval(refresh, o.healthIntervalMs);
  timer.unref();
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

  return Object.freeze({
    address: { host: o.host, port },
    url: `${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}`,
    close,
  });
}
