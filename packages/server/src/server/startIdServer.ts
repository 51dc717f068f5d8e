import { once } from 'node:events';
import {
  createServer as createHttpServer,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import {
  GenMethod,
  VestaError,
  type IdGenerators,
  type IdService,
  type IdServiceOptions,
  type Logger,
  type VestaErrorCode,
} from '@vesta/core';
import {
  layoutSpecOf,
  FairIdShare,
  RunningParts,
  serverRangeModeModule,
  splitOptions,
  statusOf,
} from '@vesta/core/kit';
import { createVestaMetrics, type VestaMetrics } from '@vesta/metrics';
import { pino } from 'pino';
import { Gauge } from 'prom-client';
import { ErrorMessage } from '../protocol/ErrorMessage.js';
import { formatServerAddress } from '../protocol/parseServerAddress.js';
import { PROTOCOL_VERSION } from '../protocol/protocolConstants.js';
import type { Welcome } from '../protocol/WelcomeMessage.js';
import { AdmissionControl } from './AdmissionControl.js';
import { IdServerConnection } from './IdServerConnection.js';
import {
  ID_SERVER_LISTENER_KEYS,
  resolveIdServerOptions,
  type IdServerOptions,
} from './IdServerOptions.js';

const REFUSED_LINGER_MS = 1000;

/** The central server mode's part of an id service (genMethod 1, the server range); load it after core's. */
export const serverModeModule = serverRangeModeModule(GenMethod.CENTRAL_SERVER);

/** Listens, or rejects with LISTEN_FAILED naming the address; the port bound. */
async function listen(server: Server, port: number, host: string, what: string): Promise<number> {
  server.listen(port, host);
  try {
    await Promise.race([
      once(server, 'listening'),
      once(server, 'error').then(([error]) => Promise.reject(error as Error)),
    ]);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    throw new VestaError(
      'LISTEN_FAILED',
      `the ${what} could not listen on ${formatServerAddress({ host, port })}: ${(cause as Error).message}`,
      { cause, details: { host, port, ...(code === undefined ? {} : { errno: code }) } },
    );
  }
  return (server.address() as AddressInfo).port;
}

/** A running id server. */
export interface IdServerHandle {
  /** Where the TCP listener is bound (the real port when 0 was asked). */
  readonly address: { readonly host: string; readonly port: number };
  /** `host:port`, as clients list it in `servers`. */
  readonly url: string;
  /** Where /metrics and /health are served, when `metricsPort` was given. */
  readonly metricsAddress: { readonly host: string; readonly port: number } | undefined;
  readonly service: IdService;
  readonly generators: IdGenerators;
  readonly metrics: VestaMetrics;
  readonly connections: number;
  /**
   * Graceful shutdown: GOAWAY, answers what is in flight, waits up to `shutdownGraceMs` for clients
   * to close, cuts the rest, then closes the id service (persisting its mark). Idempotent.
   */
  close(): Promise<void>;
}

function sendError(res: ServerResponse, code: VestaErrorCode, message: string, headers = {}): void {
  res.writeHead(statusOf(code), { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ error: { code, message } }));
}

/** The id server's HTTP side: `GET /metrics` and `GET /health` (200, or 503 with why). */
function metricsHttpServer(service: IdService, metrics: VestaMetrics, logger: Logger): HttpServer {
  const server = createHttpServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      const message = `${req.method ?? '?'} is not allowed here`;
      sendError(res, 'METHOD_NOT_ALLOWED', message, { allow: 'GET, HEAD' });
      return;
    }
    if (path === '/metrics') {
      metrics.render().then(
        ({ contentType, body }) => {
          res.writeHead(200, { 'content-type': contentType });
          res.end(body);
        },
        (error: unknown) => {
          logger.error({ err: String(error) }, 'metrics could not be rendered');
          sendError(res, 'INTERNAL_ERROR', 'metrics could not be rendered');
        },
      );
      return;
    }
    if (path === '/health') {
      const health = service.health();
      res.writeHead(health.ok ? 200 : 503, {
        'content-type': 'application/json',
        'cache-control': 'no-store',
      });
      res.end(
        JSON.stringify(
          health.ok
            ? { status: 'ok' }
            : { status: 'unavailable', error: { code: health.code, message: health.message } },
        ),
      );
      return;
    }
    sendError(res, 'NOT_FOUND', `no route ${path ?? ''}`);
  });
  server.keepAliveTimeout = 5000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  return server;
}

/**
 * Starts a central id server (genMethod 1, machine ids 924-1023) speaking PROTOCOL.md's binary
 * protocol, with /metrics and /health on `metricsPort` when given; its parts join `parts`, the
 * process's container, which `close()` closes.
 * @example
 * const server = await startIdServer({ port: 7070, machineId: 1022, stateDir: '/var/lib/vesta' });
 * // ... later
 * await server.close();
 */
export async function startIdServer(
  options: IdServerOptions,
  parts = new RunningParts(),
): Promise<IdServerHandle> {
  const listener = resolveIdServerOptions(options);
  const serviceOptions = splitOptions(ID_SERVER_LISTENER_KEYS, options).rest;
  const logger: Logger = options.logger ?? pino({ name: 'vesta-server' });
  const metrics = options.metrics ?? createVestaMetrics();
  // Closed in reverse: the listeners (connections drained), the generators, then the service.
  const { service, generators } = await parts.startIdService(
    {
      ...(serviceOptions as IdServiceOptions),
      ...(listener.stateDir === undefined ? {} : { stateDir: listener.stateDir }),
      logger,
      observer: metrics.observer,
    },
    serverModeModule,
    listener.generators,
    metrics.generatorsObserver,
  );
  metrics.describeService(service, 'server');
  const info = service.info();
  const welcome: Welcome = Object.freeze({
    protocolVersion: PROTOCOL_VERSION,
    machine: info.machine,
    genMethod: info.genMethod,
    type: info.type,
    version: info.version,
    layout: info.layout,
    layoutSpec: layoutSpecOf(info),
    epochMs: info.epochMs,
    maxBatch: info.maxBatch,
    maxInFlight: listener.maxInFlight,
  });

  const connections = new Set<IdServerConnection>();
  const gauge = { name: 'vesta_tcp_connections', registers: [metrics.registry] };
  const existing = metrics.registry.getSingleMetric(gauge.name);
  const connectionGauge =
    existing instanceof Gauge
      ? existing
      : new Gauge({ ...gauge, help: 'Open client connections of the TCP id server.' });
  // One share of the layout's ids for every connection (named generators draw on the same service).
  const share = new FairIdShare({ idsPerUnit: 2 ** info.layout.seqBits, unitMs: info.unitMs });
  const { maxTotalInFlight, maxBufferedBytes } = listener;
  const context = {
    service,
    generators,
    options: listener,
    welcome,
    metrics,
    generateRecorder: metrics.requestRecorder('generate'),
    logger,
    admission: new AdmissionControl(maxTotalInFlight, maxBufferedBytes, share),
  };
  let closing = false;
  const forget = (connection: IdServerConnection): void => {
    if (connections.delete(connection)) connectionGauge.dec();
  };
  // At the cap: close the connection idle the longest; false when every one is busy.
  const makeRoom = (): boolean => {
    let victim: IdServerConnection | undefined;
    for (const c of connections) {
      if (c.evictable && (victim === undefined || c.lastActiveAt < victim.lastActiveAt)) victim = c;
    }
    if (victim === undefined) return false;
    victim.evict();
    forget(victim);
    return true;
  };
  const server = createServer({ allowHalfOpen: true, noDelay: true }, (socket: Socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    if (connections.size >= listener.maxConnections && !makeRoom()) {
      logger.warn(
        { connections: connections.size },
        'refusing a connection: at maxConnections and every connection is busy',
      );
      socket.on('error', () => undefined);
      // Read and discard, so the peer's FIN closes the socket at once.
      socket.resume();
      const message = `the server is at its ${listener.maxConnections} connections, all busy`;
      socket.end(ErrorMessage.encode(0, 'OVERLOADED', message));
      setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
      return;
    }
    const connection = new IdServerConnection(socket, context);
    connections.add(connection);
    connectionGauge.inc();
    void connection.closed.then(() => forget(connection));
  });
  server.on('error', (error) => logger.error({ err: error.message }, 'id server listener error'));

  // Listening before the TCP listener, so closed after its connections drained.
  const { metricsPort } = listener;
  const http =
    metricsPort === undefined
      ? undefined
      : await parts.start('metrics listener', async () => {
          const http = metricsHttpServer(service, metrics, logger);
          return {
            port: await listen(http, metricsPort, listener.metricsHost, 'metrics listener'),
            close: () => {
              http.closeAllConnections();
              return new Promise<void>((resolve) => http.close(() => resolve()));
            },
          };
        });
  const tcp = await parts.start('listener', async () => {
    return {
      port: await listen(server, listener.port, listener.host, 'id server'),
      async close() {
        closing = true;
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const connection of connections) connection.shutdown();
        const all = Promise.all([...connections].map((c) => c.closed));
        let timer: NodeJS.Timeout | undefined;
        const grace = new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), listener.shutdownGraceMs);
        });
        if ((await Promise.race([all, grace])) === 'timeout') {
          logger.warn(
            { connections: connections.size },
            'cutting connections still open after the grace period',
          );
          for (const connection of connections) connection.destroy();
          await all;
        }
        clearTimeout(timer);
        await stopped;
      },
    };
  });
  const address = Object.freeze({ host: listener.host, port: tcp.port });
  const metricsAddress =
    http === undefined ? undefined : Object.freeze({ host: listener.metricsHost, port: http.port });
  logger.info(
    {
      host: address.host,
      port: address.port,
      machine: info.machine,
      type: info.typeName,
      epoch: info.epoch,
      stateDir: listener.stateDir ?? null,
      auth: listener.authToken !== undefined,
      metricsPort: metricsAddress?.port ?? null,
    },
    'vesta id server listening',
  );

  let closed: Promise<void> | undefined;

  return {
    address,
    url: formatServerAddress(address),
    metricsAddress,
    service,
    generators,
    metrics,
    get connections() {
      return connections.size;
    },
    close() {
      closed ??= parts.close().then(() => logger.info({}, 'vesta id server stopped'));
      return closed;
    },
  };
}
