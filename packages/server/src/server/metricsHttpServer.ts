import { createServer, type Server } from 'node:http';
import type { IdService, Logger } from '@vesta/core';
import type { VestaMetrics } from '@vesta/metrics';

/**
 * The small HTTP side of the id server: `GET /metrics` (Prometheus text) and `GET /health`
 * (200 `{"status":"ok"}`, or 503 with the code and message of why ids cannot be issued).
 */
export function metricsHttpServer(
  service: IdService,
  metrics: VestaMetrics,
  logger: Logger,
): Server {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'application/json', allow: 'GET, HEAD' });
      res.end(
        JSON.stringify({
          code: 'METHOD_NOT_ALLOWED',
          message: `${req.method ?? '?'} is not allowed here`,
        }),
      );
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
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({ code: 'INTERNAL_ERROR', message: 'metrics could not be rendered' }),
          );
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
            : { status: 'unavailable', code: health.code, message: health.message },
        ),
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ code: 'NOT_FOUND', message: `no route ${path ?? ''}` }));
  });
  server.keepAliveTimeout = 5000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  return server;
}
