import { createServer, type Server } from 'node:http';
import type { IdService, Logger, VestaErrorCode } from '@vesta/core';
import { statusOf } from '@vesta/core/kit';
import type { VestaMetrics } from '@vesta/metrics';

function errorBody(code: VestaErrorCode, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

/** The id server's HTTP side: `GET /metrics` and `GET /health` (200, or 503 with why). */
export function metricsHttpServer(
  service: IdService,
  metrics: VestaMetrics,
  logger: Logger,
): Server {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(statusOf('METHOD_NOT_ALLOWED'), {
        'content-type': 'application/json',
        allow: 'GET, HEAD',
      });
      res.end(errorBody('METHOD_NOT_ALLOWED', `${req.method ?? '?'} is not allowed here`));
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
          res.writeHead(statusOf('INTERNAL_ERROR'), { 'content-type': 'application/json' });
          res.end(errorBody('INTERNAL_ERROR', 'metrics could not be rendered'));
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
    res.writeHead(statusOf('NOT_FOUND'), { 'content-type': 'application/json' });
    res.end(errorBody('NOT_FOUND', `no route ${path ?? ''}`));
  });
  server.keepAliveTimeout = 5000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  return server;
}
