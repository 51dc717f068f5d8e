import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { VestaError, ERROR_CODES } from '@vesta/core';
import { createVestaMetrics } from '@vesta/metrics';
import { createRestIdService } from './createRestIdService.js';
import { buildExpressApp } from './http/buildExpressApp.js';
import { createPreRouter } from './http/createPreRouter.js';
import { createRestHandlers } from './http/createRestHandlers.js';
import { resolveRestAppOptions } from './RestAppOptions.js';
import type { RestServer } from './RestServer.js';
import { resolveRestServerOptions, type RestServerOptions } from './RestServerOptions.js';

const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;

function rawError(
  status: number,
  code: 'PROTOCOL_ERROR' | 'PAYLOAD_TOO_LARGE',
  message: string,
): string {
  const body = JSON.stringify({ error: { code, message } });
  return (
    `HTTP/1.1 ${status} ${status === 400 ? 'Bad Request' : 'Payload Too Large'}\r\n` +
    `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `Connection: close\r\n\r\n${body}`
  );
}

/** What a client whose bytes are not HTTP gets: a coded 4xx, then the connection closes. */
function onClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
  } else if (error.code === 'HPE_HEADER_OVERFLOW') {
    socket.end(
      rawError(
        ERROR_CODES.PAYLOAD_TOO_LARGE.status,
        'PAYLOAD_TOO_LARGE',
        'the request line or headers are too large',
      ),
    );
  } else {
    socket.end(
      rawError(ERROR_CODES.PROTOCOL_ERROR.status, 'PROTOCOL_ERROR', 'malformed HTTP request'),
    );
  }
}

/**
 * Starts the REST id server: builds the id service (genMethod 2, machine id 924-1023),
 * listens, and returns a handle whose `close()` stops it gracefully. Signals are the caller's
 * to wire (the `vesta rest` command does: SIGTERM/SIGINT -> close -> exit 0).
 *
 * @example
 * const server = await startRestServer({ machineId: 1000, port: 0, stateDir: '/var/lib/vesta' });
 * console.log(server.url); // http://127.0.0.1:41237
 * await server.close();
 */
export async function startRestServer(options: RestServerOptions): Promise<RestServer> {
  const resolved = resolveRestServerOptions(options);
  const { logger } = resolved;
  const metrics = resolved.metrics ?? createVestaMetrics();
  const service = await createRestIdService({
    ...resolved.service,
    observer: metrics.observer,
    logger,
  });
  let draining = false;
  try {
    const handlers = createRestHandlers(
      resolveRestAppOptions({
        service,
        metrics,
        logger,
        maxBatch: resolved.maxBatch,
        maxQueryLength: resolved.maxQueryLength,
        ...(resolved.authToken === undefined ? {} : { authToken: resolved.authToken }),
      }),
    );
    const app = buildExpressApp(handlers);
    const dispatch = createPreRouter(handlers, app);
    const inFlight = new Set<ServerResponse>();
    const closeIdle = (): void => server.closeIdleConnections();
    // One listener for every response, not a closure per request.
    function onResponseClose(this: ServerResponse): void {
      inFlight.delete(this);
      // Only once the response is flushed may its keep-alive connection be cut.
      if (draining) setImmediate(closeIdle);
    }
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      // While draining, answer what is in flight and let keep-alive clients go elsewhere.
      if (draining) res.setHeader('connection', 'close');
      inFlight.add(res);
      res.on('close', onResponseClose);
      dispatch(req, res);
    });
    server.headersTimeout = HEADERS_TIMEOUT_MS;
    server.requestTimeout = REQUEST_TIMEOUT_MS;
    server.on('clientError', onClientError);
    await new Promise<void>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException): void => {
        reject(
          new VestaError(
            'LISTEN_FAILED',
            `cannot listen on ${resolved.host}:${resolved.port}: ${error.code ?? error.message}`,
            { cause: error, details: { host: resolved.host, port: resolved.port } },
          ),
        );
      };
      server.once('error', onError);
      server.listen({ host: resolved.host, port: resolved.port }, () => {
        server.off('error', onError);
        resolve();
      });
    });
    server.on('error', (error) => logger.error({ err: error }, 'server error'));
    const address = server.address() as AddressInfo;
    const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const url = `http://${urlHost}:${address.port}`;
    let closing: Promise<void> | undefined;
    const close = (): Promise<void> => {
      closing ??= (async () => {
        draining = true;
        logger.info({ url }, 'stopping: no new connections, finishing requests in flight');
        for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
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
        await service.close();
        logger.info({}, 'stopped; high-water mark persisted');
      })();
      return closing;
    };
    return Object.freeze({
      url,
      host: address.address,
      port: address.port,
      service,
      metrics,
      app,
      server,
      close,
    });
  } catch (error) {
    await service.close().catch(() => undefined);
    throw error;
  }
}
