import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { VestaError, type VestaErrorCode } from '@vesta/core';
import { RunningParts } from '@vesta/core/kit';
import { createVestaMetrics } from '@vesta/metrics';
import { restModeModule } from './createRestIdService.js';
import { listenOn } from './listenOn.js';
import { buildExpressApp } from './http/buildExpressApp.js';
import { ConnectionGuard } from './http/ConnectionGuard.js';
import { createRestHandlers, type HttpHandler } from './http/createRestHandlers.js';
import type { RestHandlerHooks } from './http/routeHandlers.js';
import { rawErrorResponse } from './http/sendRestError.js';
import { resolveRestAppOptions } from './RestAppOptions.js';
import type { RestServer } from './RestServer.js';
import { resolveRestServerOptions, type RestServerOptions } from './RestServerOptions.js';

/** How often the connection timeouts are checked (node's default is every 30 s). */
const CHECK_INTERVAL_MS = 1000;

/** What a client whose bytes node's parser refuses gets, after the answers of its valid requests. */
function clientErrorAnswer(error: NodeJS.ErrnoException): string {
  const [code, message]: [VestaErrorCode, string] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? ['REQUEST_TIMEOUT', 'the request head did not arrive whole within headersTimeoutMs']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? ['PAYLOAD_TOO_LARGE', 'the request line or headers are too large']
        : ['PROTOCOL_ERROR', 'malformed HTTP request'];
  return rawErrorResponse(code, message);
}

/** Internal: how a worker of `startRestCluster` differs from a server of its own. */
export interface RestServerHooks extends RestHandlerHooks {
  /** Makes `server` receive connections (default: listens on `host:port`); its address. */
  readonly listen?: (server: Server) => Promise<AddressInfo>;
  /** The process's container, which `close()` closes (the CLI's segments join it). */
  readonly parts?: RunningParts;
}

/**
 * Starts the REST id server (genMethod 2, machine id 924-1023); `close()` stops it gracefully.
 * Signals are the caller's to wire.
 * @example
 * const server = await startRestServer({ machineId: 1000, port: 0, stateDir: '/var/lib/vesta' });
 * console.log(server.url); // http://127.0.0.1:41237
 * await server.close();
 */
export async function startRestServer(
  options: RestServerOptions,
  hooks: RestServerHooks = {},
): Promise<RestServer> {
  const resolved = resolveRestServerOptions(options);
  const { logger } = resolved;
  const metrics = resolved.metrics ?? createVestaMetrics();
  const { parts = new RunningParts() } = hooks;
  // Closed in reverse: the listener, the generators, the service.
  const { service, generators } = await parts.startIdService(
    { ...resolved.service, observer: metrics.observer, logger },
    restModeModule,
    resolved.generators,
    metrics.generatorsObserver,
  );
  metrics.describeService(service, 'rest');
  return parts.closeOnFailure(async () => {
    const handlers = createRestHandlers(
      resolveRestAppOptions({
        ...{ service, generators, metrics, logger, maxBatch: resolved.maxBatch },
        ...{ maxQueryLength: resolved.maxQueryLength, authToken: resolved.authToken },
        ...{ scrambleKey: resolved.scrambler, segments: resolved.segments },
      }),
      hooks,
    );
    const app = buildExpressApp(handlers);
    // A GET or HEAD of an exact route skips express's router and its re-prototyping of req/res.
    const dispatch: HttpHandler = (req, res) => (handlers.exact(req) ?? app)(req, res);
    const { maxConnections, maxPipelinedRequests, maxRequestsInFlight } = resolved;
    const { headersTimeoutMs, requestTimeoutMs } = resolved;
    const limits = {
      ...{ maxConnections, maxPipelinedRequests, maxRequestsInFlight },
      ...{ headersTimeoutMs, requestTimeoutMs },
    };
    const guard = new ConnectionGuard(
      { ...limits, checkIntervalMs: CHECK_INTERVAL_MS },
      {
        serve(req, res) {
          // Node would answer a bare 400; the README promises a coded one.
          if (req.headers.host === undefined && req.httpVersion === '1.1') {
            res.setHeader('connection', 'close');
            const needsHost = 'an HTTP/1.1 request needs a Host header';
            handlers.failed(res, new VestaError('PROTOCOL_ERROR', needsHost));
            return;
          }
          return dispatch(req, res);
        },
        overloaded(res) {
          handlers.failed(
            res,
            new VestaError('OVERLOADED', 'too many requests in flight; retry later', {
              details: { retryAfterMs: 1000 },
            }),
          );
        },
        refusedConnection: rawErrorResponse(
          'OVERLOADED',
          'every connection is being served; retry later',
          ['Retry-After: 1'],
        ),
      },
    );
    const server = createServer(
      {
        requireHostHeader: false,
        headersTimeout: headersTimeoutMs,
        requestTimeout: requestTimeoutMs,
        connectionsCheckingInterval: CHECK_INTERVAL_MS,
      },
      (req: IncomingMessage, res: ServerResponse) => guard.onRequest(req, res),
    );
    guard.attach(server);
    server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
      if (error.code === 'ECONNRESET' || !socket.writable) socket.destroy();
      else guard.closeAfterPending(socket, clientErrorAnswer(error));
    });
    // CONNECT is not for an id server; without a listener node would drop the socket unanswered.
    server.on('connect', (req: IncomingMessage, socket: Socket) => {
      guard.closeAfterPending(
        socket,
        rawErrorResponse(
          'METHOD_NOT_ALLOWED',
          'CONNECT is not allowed: the routes answer GET and HEAD',
          ['Allow: GET, HEAD'],
        ),
      );
    });
    // Every connection, listened for or handed in: a drain waits for them all.
    const open = new Set<Socket>();
    let allClosed: (() => void) | undefined;
    server.on('connection', (socket: Socket) => {
      open.add(socket);
      socket.once('close', () => {
        open.delete(socket);
        if (open.size === 0) allClosed?.();
      });
    });
    const address = await (hooks.listen ?? listenOn(resolved.host, resolved.port))(server);
    server.on('error', (error) => logger.error({ err: error }, 'server error'));
    const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const url = `http://${urlHost}:${address.port}`;
    logger.info({ url, ...limits }, `connection limits: at most ${maxConnections} connections`);
    await parts.start('listener', async () => ({
      async close() {
        logger.info({ url }, 'stopping: no new connections, finishing requests in flight');
        guard.drain(() => server.closeIdleConnections());
        const closed = Promise.all([
          new Promise<void>((resolve) => server.close(() => resolve())),
          new Promise<void>((resolve) => {
            allClosed = resolve;
            if (open.size === 0) resolve();
          }),
        ]);
        server.closeIdleConnections();
        const cut = setTimeout(() => {
          logger.warn(
            { timeoutMs: resolved.shutdownTimeoutMs },
            'requests still in flight at the shutdown timeout; cutting them',
          );
          server.closeAllConnections();
        }, resolved.shutdownTimeoutMs);
        try {
          await closed;
        } finally {
          clearTimeout(cut);
        }
      },
    }));
    let closing: Promise<void> | undefined;
    const close = (): Promise<void> =>
      (closing ??= parts.close().then(() => logger.info({}, 'stopped; high-water mark persisted')));
    return Object.freeze({
      url,
      host: address.address,
      port: address.port,
      service,
      generators,
      metrics,
      app,
      server,
      close,
    });
  });
}
