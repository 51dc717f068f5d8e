import type { IncomingMessage, ServerResponse } from 'node:http';
import { VestaError } from '@vesta/core';
import type { RequestRecorder } from '@vesta/metrics';
import { loadPageAssets } from '../page/loadPageAssets.js';
import type { ResolvedRestAppOptions } from '../RestAppOptions.js';
import { decodeRoutes } from './decodeRoutes.js';
import { idRoutes } from './idRoutes.js';
import { QueryParams } from './QueryParams.js';
import { RestContext, type RestHandlerHooks } from './RestContext.js';
import { JSON_HEADERS, type RestReply, type RouteHandler, type RouteTable } from './RestReply.js';
import { REST_ROUTES, type RestPath, type RestRoute } from './restRoutes.js';
import { accessLog } from './accessLog.js';
import { sendRestError } from './sendRestError.js';
import { segmentRoutes } from './segmentRoutes.js';
import { serviceRoutes } from './serviceRoutes.js';

/** A plain node:http handler; express's `Request`/`Response` are these too. */
/** Answers a request; returns a promise when the work goes on after it returns (settled, never rejected). */
export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

/**
 * The one implementation of every route of the REST API (auth, query validation, metrics,
 * error bodies), shared by the express app and the standalone server's pre-router so the two
 * cannot drift.
 */
export interface RestHandlers {
  /** GET/HEAD of each route, by its exact path. */
  readonly routes: ReadonlyMap<string, HttpHandler>;
  /**
   * The paths of the id page, the docs and their assets (a subset of `routes`): matched exactly,
   * since under `/docs/` or `/DOCS` their relative links would miss.
   */
  readonly pages: ReadonlySet<string>;
  /** Any other method on a route's path: 405 METHOD_NOT_ALLOWED with `Allow`. */
  readonly methodNotAllowed: ReadonlyMap<string, HttpHandler>;
  /** 404 NOT_FOUND for `path` (shortened in the message, counted as route "unmatched"). */
  notFound(res: ServerResponse, path: string): void;
  /** An error raised outside a route (by express): its coded status, or a 500. */
  failed(res: ServerResponse, error: unknown): void;
}

const UNMATCHED = 'unmatched';

/**
 * Builds the handlers of the REST API over validated options. Internal: `createRestApp`
 * mounts them in express, `startRestServer` also dispatches exact routes to them directly.
 * The routes' own work lives in {@link idRoutes}, {@link decodeRoutes}, {@link segmentRoutes}
 * and {@link serviceRoutes} over one {@link RestContext}; this wraps each in auth, query parsing,
 * metrics and error answers ({@link sendRestError}).
 */
export function createRestHandlers(
  options: ResolvedRestAppOptions,
  hooks: RestHandlerHooks = {},
): RestHandlers {
  const { maxQueryLength, metrics, logger } = options;
  const ctx = new RestContext(options, hooks);
  const { authorized } = ctx;

  const send = (
    res: ServerResponse,
    route: RequestRecorder,
    label: string,
    reply: RestReply,
    started: number,
  ): void => {
    res.writeHead(reply.status, reply.headers ?? JSON_HEADERS);
    res.end(reply.body);
    route.record(reply.status, (performance.now() - started) / 1000);
    accessLog(logger, res, label, started, reply.ids);
  };

  const unauthorized = (): VestaError =>
    new VestaError('UNAUTHORIZED', 'a valid "Authorization: Bearer <token>" header is required');

  const serve = (
    route: Pick<RestRoute, 'path' | 'params' | 'open'>,
    handle: RouteHandler,
  ): HttpHandler => {
    const routeMetrics = metrics.requestRecorder(route.path);
    const needsToken = authorized !== undefined && !route.open;
    return (req, res) => {
      const started = performance.now();
      try {
        if (needsToken && !authorized(req.headers.authorization)) throw unauthorized();
        const url = req.url ?? '/';
        const reply = handle(
          QueryParams.parse(url, route, maxQueryLength),
          req.method === 'HEAD',
          url,
          req.socket,
        );
        if ('then' in reply) {
          return reply.then(
            (r) => send(res, routeMetrics, route.path, r, started),
            (error: unknown) =>
              sendRestError(res, routeMetrics, route.path, error, started, logger),
          );
        } else {
          send(res, routeMetrics, route.path, reply, started);
        }
      } catch (error) {
        sendRestError(res, routeMetrics, route.path, error, started, logger);
      }
    };
  };

  const handlers: RouteTable<RestPath> = {
    ...idRoutes(ctx),
    ...decodeRoutes(ctx),
    ...serviceRoutes(ctx),
    ...segmentRoutes(ctx),
  };

  const routes = new Map<string, HttpHandler>();
  const methodNotAllowed = new Map<string, HttpHandler>();
  for (const route of REST_ROUTES) routes.set(route.path, serve(route, handlers[route.path]));
  // The id page and the API documentation: open (the page asks for the token itself), and
  // like every route strict about its query.
  const pages = new Set<string>();
  for (const [path, asset] of loadPageAssets()) {
    pages.add(path);
    const reply: RestReply = { status: 200, body: asset.body, headers: asset.headers };
    routes.set(
      path,
      serve({ path, params: [], open: true }, () => reply),
    );
  }
  for (const path of routes.keys()) {
    const routeMetrics = metrics.requestRecorder(path);
    methodNotAllowed.set(path, (req, res) =>
      sendRestError(
        res,
        routeMetrics,
        path,
        new VestaError(
          'METHOD_NOT_ALLOWED',
          `${path} answers GET and HEAD, not ${req.method ?? ''}`,
        ),
        performance.now(),
        logger,
      ),
    );
  }
  const unmatched = metrics.requestRecorder(UNMATCHED);
  return Object.freeze({
    routes,
    pages,
    methodNotAllowed,
    notFound(res: ServerResponse, path: string): void {
      const shown = path.length > 60 ? `${path.slice(0, 60)}...` : path;
      sendRestError(
        res,
        unmatched,
        UNMATCHED,
        new VestaError(
          'NOT_FOUND',
          `no route ${JSON.stringify(shown)}; GET /openapi.json lists them`,
        ),
        performance.now(),
        logger,
      );
    },
    failed(res: ServerResponse, error: unknown): void {
      sendRestError(res, unmatched, UNMATCHED, error, performance.now(), logger);
    },
  });
}
