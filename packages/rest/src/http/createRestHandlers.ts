import type { IncomingMessage, ServerResponse } from 'node:http';
import { VestaError } from '@vesta/core';
import { createBearerTokenCheck } from '@vesta/core/kit';
import { loadPageAssets } from '../page/pageRoutes.js';
import type { ResolvedRestAppOptions } from '../RestAppOptions.js';
import { paramsReader } from './paramsReader.js';
import { routeHandlers, type RestHandlerHooks, type RestReply } from './routeHandlers.js';
import { REST_ROUTES, type RestRoute } from './restRoutes.js';
import { accessLog, JSON_HEADERS, sendRestError } from './sendRestError.js';

/** A plain node:http handler; a promise it returns never rejects. */
export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

/** Every route of the REST API (auth, validation, metrics, errors), for any HTTP framework. */
export interface RestHandlers {
  /** GET/HEAD of each route, by its exact path. */
  readonly routes: ReadonlyMap<string, HttpHandler>;
  /** The handler of a GET or HEAD whose path (query aside) is exactly one of `routes`'. */
  exact(req: IncomingMessage): HttpHandler | undefined;
  /** The paths of the id page, docs and assets (in `routes`), matched exactly for their links. */
  readonly pages: ReadonlySet<string>;
  /** Any other method on a route's path: 405 METHOD_NOT_ALLOWED with `Allow`. */
  readonly methodNotAllowed: ReadonlyMap<string, HttpHandler>;
  /** 404 NOT_FOUND for `path` (shortened in the message, counted as route "unmatched"). */
  notFound(res: ServerResponse, path: string): void;
  /** An error raised outside a route (by express): its coded status, or a 500. */
  failed(res: ServerResponse, error: unknown): void;
}

const UNMATCHED = 'unmatched';

/** Builds the REST API's handlers over validated options. */
export function createRestHandlers(
  options: ResolvedRestAppOptions,
  hooks: RestHandlerHooks = {},
): RestHandlers {
  const { maxQueryLength, metrics, logger, authToken } = options;
  const authorized = authToken === undefined ? undefined : createBearerTokenCheck(authToken);

  const serve = (
    route: Pick<RestRoute, 'path' | 'params' | 'open'>,
    handle: (params: never, head: boolean, flow: object) => RestReply | Promise<RestReply>,
  ): HttpHandler => {
    const { path } = route;
    const recorder = metrics.requestRecorder(path);
    const needsToken = authorized !== undefined && route.open !== true;
    const read = paramsReader(route, maxQueryLength, options);
    const send = (res: ServerResponse, reply: RestReply, started: number): void => {
      res.writeHead(reply.status, reply.headers ?? JSON_HEADERS);
      res.end(reply.body);
      recorder.record(reply.status, (performance.now() - started) / 1000);
      accessLog(logger, res, path, started, reply.ids);
    };
    return (req, res) => {
      const started = performance.now();
      try {
        if (needsToken && !authorized(req.headers.authorization)) {
          const why = 'a valid "Authorization: Bearer <token>" header is required';
          throw new VestaError('UNAUTHORIZED', why);
        }
        const reply = handle(read(req.url ?? '/') as never, req.method === 'HEAD', req.socket);
        if (!('then' in reply)) return send(res, reply, started);
        return reply.then(
          (r) => send(res, r, started),
          (error: unknown) => sendRestError(logger, res, recorder, path, error, started),
        );
      } catch (error) {
        sendRestError(logger, res, recorder, path, error, started);
      }
    };
  };

  const handlers = routeHandlers(options, hooks);
  const routes = new Map<string, HttpHandler>();
  for (const route of REST_ROUTES) routes.set(route.path, serve(route, handlers[route.path]));
  // The id page and docs are open: the page asks for the token itself.
  const pages = new Set<string>();
  for (const [path, { body, headers }] of loadPageAssets()) {
    pages.add(path);
    const reply: RestReply = { status: 200, body, headers };
    const page = serve({ path, params: {}, open: true }, () => reply);
    routes.set(path, page);
  }
  const methodNotAllowed = new Map<string, HttpHandler>();
  for (const path of routes.keys()) {
    const recorder = metrics.requestRecorder(path);
    methodNotAllowed.set(path, (req, res) => {
      const not = `${path} answers GET and HEAD, not ${req.method ?? ''}`;
      sendRestError(logger, res, recorder, path, new VestaError('METHOD_NOT_ALLOWED', not));
    });
  }
  const unmatched = metrics.requestRecorder(UNMATCHED);
  return Object.freeze({
    routes,
    exact(req: IncomingMessage): HttpHandler | undefined {
      const method = req.method;
      if (method !== 'GET' && method !== 'HEAD') return undefined;
      const url = req.url ?? '';
      const at = url.indexOf('?');
      return routes.get(at < 0 ? url : url.slice(0, at));
    },
    pages,
    methodNotAllowed,
    notFound(res: ServerResponse, path: string): void {
      const shown = JSON.stringify(path.length > 60 ? `${path.slice(0, 60)}...` : path);
      const error = new VestaError('NOT_FOUND', `no route ${shown}; GET /openapi.json lists them`);
      sendRestError(logger, res, unmatched, UNMATCHED, error);
    },
    failed(res: ServerResponse, error: unknown): void {
      sendRestError(logger, res, unmatched, UNMATCHED, error);
    },
  });
}
