import {
  ERROR_CODES,
  parseId,
  parseIdType,
  VestaError,
  type MakeIdFields,
  type VestaErrorCode,
} from '@vesta/core';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Counter, Histogram } from 'prom-client';
import { createBearerTokenCheck } from './http/createBearerTokenCheck.js';
import { QueryParams } from './http/QueryParams.js';
import { REST_ROUTES, type RestPath, type RestRoute } from './http/restRoutes.js';
import { buildOpenApiDocument } from './openapi/buildOpenApiDocument.js';
import { resolveRestAppOptions, type RestAppOptions } from './RestAppOptions.js';

interface Reply {
  readonly status: number;
  readonly body: string;
  readonly type?: string;
}

type RouteHandler = (query: QueryParams) => Reply | Promise<Reply>;

const JSON_TYPE = 'application/json; charset=utf-8';
const ALLOW = 'GET, HEAD';
const UNMATCHED = 'unmatched';

function ok(body: string): Reply {
  return { status: 200, body };
}

function errorBody(code: VestaErrorCode, message: string): string {
  return `{"error":${JSON.stringify({ code, message })}}`;
}

/** Errors express itself raises carry an HTTP status; keep the client ones, hide the rest. */
function codeOfForeign(error: unknown): VestaErrorCode {
  const status = (error as { status?: unknown } | null)?.status;
  if (status === 400) return 'INVALID_ARGUMENT';
  if (status === 404) return 'NOT_FOUND';
  if (status === 413) return 'PAYLOAD_TOO_LARGE';
  return 'INTERNAL_ERROR';
}

/**
 * The REST API of the id service as an express app, to listen on (see `startRestServer`) or to
 * mount in an existing express server. Every id is a decimal string; errors are
 * `{"error":{"code","message"}}` with the status of the code's row in `ERROR_CODES`.
 *
 * Tuned for throughput within express: no etag, no x-powered-by, no query parser (queries
 * are parsed strictly by hand, only where a route takes parameters), responses written as
 * pre-built JSON strings, auth, validation and metrics done inside each route's one handler.
 *
 * @example
 * const service = await createRestIdService({ machineId: 1000 });
 * const app = createRestApp({ service, authToken: process.env.VESTA_AUTH_TOKEN });
 * outer.use('/ids', app);
 */
export function createRestApp(options: RestAppOptions): Express {
  const { service, authToken, maxBatch, maxQueryLength, metrics, logger } =
    resolveRestAppOptions(options);
  const authorized = authToken === undefined ? undefined : createBearerTokenCheck(authToken);
  const openApi = JSON.stringify(
    buildOpenApiDocument(service.info(), maxBatch, authorized !== undefined),
  );

  const counters = new Map<string, Counter.Internal>();
  const timers = new Map<string, Histogram.Internal<'route'>>();
  const record = (route: string, status: number, started: number): void => {
    const key = `${route} ${status}`;
    let counter = counters.get(key);
    if (counter === undefined) {
      counter = metrics.requests.labels(route, String(status));
      counters.set(key, counter);
    }
    counter.inc();
    let timer = timers.get(route);
    if (timer === undefined) {
      timer = metrics.requestDuration.labels(route);
      timers.set(route, timer);
    }
    timer.observe((performance.now() - started) / 1000);
  };

  const send = (res: Response, route: string, reply: Reply, started: number): void => {
    res.writeHead(reply.status, {
      'content-type': reply.type ?? JSON_TYPE,
      'cache-control': 'no-store',
    });
    res.end(reply.body);
    record(route, reply.status, started);
  };

  const fail = (res: Response, route: string, error: unknown, started: number): void => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    let code: VestaErrorCode;
    let message: string;
    if (VestaError.is(error) && error.code !== 'INTERNAL_ERROR') {
      code = error.code;
      message = error.message;
    } else {
      code = codeOfForeign(error);
      message =
        code === 'INTERNAL_ERROR'
          ? 'internal error; the server log has the details'
          : String((error as Error).message);
    }
    const status = ERROR_CODES[code].status;
    if (status >= 500 && code === 'INTERNAL_ERROR')
      logger.error({ err: error, route }, 'request failed');
    const headers: Record<string, string> = {
      'content-type': JSON_TYPE,
      'cache-control': 'no-store',
    };
    if (status === 401) headers['www-authenticate'] = 'Bearer realm="vesta"';
    if (status === 405) headers.allow = ALLOW;
    if (status === 503) headers['retry-after'] = '1';
    res.writeHead(status, headers);
    res.end(errorBody(code, message));
    record(route, status, started);
  };

  const serve =
    (route: RestRoute, handle: RouteHandler) =>
    (req: Request, res: Response): void => {
      const started = performance.now();
      try {
        if (authorized !== undefined && !route.open && !authorized(req.headers.authorization)) {
          throw new VestaError(
            'UNAUTHORIZED',
            'a valid "Authorization: Bearer <token>" header is required',
          );
        }
        const reply = handle(QueryParams.parse(req.url, route, maxQueryLength));
        if ('then' in reply) {
          reply.then(
            (r) => send(res, route.path, r, started),
            (error: unknown) => fail(res, route.path, error, started),
          );
        } else {
          send(res, route.path, reply, started);
        }
      } catch (error) {
        fail(res, route.path, error, started);
      }
    };

  const optionalType = (query: QueryParams) => {
    const raw = query.optional('type');
    return raw === undefined ? undefined : parseIdType(raw);
  };

  const handlers: Record<RestPath, RouteHandler> = {
    '/genid': async () => {
      const id = await service.genId();
      metrics.idsIssued.inc();
      return ok(`{"id":"${id}"}`);
    },
    '/genids': async (query) => {
      const count = query.requiredWhole('count');
      if (count < 1 || count > maxBatch) {
        throw new VestaError(
          'INVALID_ARGUMENT',
          `count must be a whole number from 1 to ${maxBatch}, got ${count}`,
          {
            details: { count, maxBatch },
          },
        );
      }
      const ids = await service.genIds(count);
      metrics.idsIssued.inc(count);
      return ok(`{"ids":["${ids.join('","')}"]}`);
    },
    '/expid': (query) => {
      const id = parseId(query.required('id'));
      const f = service.expId(id);
      const date = service.transTime(f.time, f.type).toISOString();
      return ok(
        `{"id":"${id}","machine":${f.machine},"seq":${f.seq},"time":${f.time},"genMethod":${f.genMethod},` +
          `"type":${f.type},"version":${f.version},"date":"${date}"}`,
      );
    },
    '/transtime': (query) => {
      const time = query.requiredWhole('time');
      const date = service.transTime(time, optionalType(query)).toISOString();
      return ok(`{"time":${time},"date":"${date}"}`);
    },
    '/makeid': (query) => {
      const fields: { -readonly [K in keyof MakeIdFields]: MakeIdFields[K] } = {
        time: query.requiredWhole('time'),
        seq: query.requiredWhole('seq'),
      };
      const machine = query.optionalWhole('machine');
      const genMethod = query.optionalWhole('genMethod');
      const type = optionalType(query);
      const version = query.optionalWhole('version');
      if (machine !== undefined) fields.machine = machine;
      if (genMethod !== undefined) fields.genMethod = genMethod;
      if (type !== undefined) fields.type = type;
      if (version !== undefined) fields.version = version;
      return ok(`{"id":"${service.makeId(fields)}"}`);
    },
    '/info': () =>
      ok(JSON.stringify({ ...service.info(), maxBatch, auth: authorized !== undefined })),
    '/health': () => {
      const health = service.health();
      if (health.ok) return ok('{"status":"ok"}');
      return {
        status: 503,
        body: `{"status":"unavailable",${errorBody(health.code as VestaErrorCode, health.message).slice(1)}`,
      };
    },
    '/metrics': async () => {
      const { contentType, body } = await metrics.render();
      return { status: 200, body, type: contentType };
    },
    '/openapi.json': () => ok(openApi),
  };

  const app = express();
  app.set('etag', false);
  app.set('x-powered-by', false);
  app.set('query parser', false);
  for (const route of REST_ROUTES) {
    app.get(route.path, serve(route, handlers[route.path]));
    app.all(route.path, (req: Request, res: Response) =>
      fail(
        res,
        route.path,
        new VestaError(
          'METHOD_NOT_ALLOWED',
          `${route.path} answers GET and HEAD, not ${req.method}`,
        ),
        performance.now(),
      ),
    );
  }
  app.use((req: Request, res: Response) => {
    const path = req.path.length > 60 ? `${req.path.slice(0, 60)}...` : req.path;
    fail(
      res,
      UNMATCHED,
      new VestaError('NOT_FOUND', `no route ${JSON.stringify(path)}; GET /openapi.json lists them`),
      performance.now(),
    );
  });
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    fail(res, UNMATCHED, error, performance.now());
  });
  return app;
}
