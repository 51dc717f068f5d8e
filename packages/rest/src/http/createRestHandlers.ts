import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ERROR_CODES,
  formatId,
  IdConverter,
  parseId,
  parseIdForm,
  parseIdType,
  VestaError,
  type IdService,
  type MakeIdFields,
  vestaLayout,
  type IdType,
  type VestaErrorCode,
} from '@vesta/core';
import { checkBatchCount, statusOf } from '@vesta/core/kit';
import type { RequestRecorder } from '@vesta/metrics';
import { buildOpenApiDocument } from '../openapi/buildOpenApiDocument.js';
import { loadPageAssets } from '../page/loadPageAssets.js';
import type { ResolvedRestAppOptions } from '../RestAppOptions.js';
import { createBearerTokenCheck } from './createBearerTokenCheck.js';
import { QueryParams } from './QueryParams.js';
import { REST_ROUTES, type RestPath, type RestRoute } from './restRoutes.js';

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

interface Reply {
  readonly status: number;
  readonly body: string | Buffer;
  /** Pre-built response headers, as a flat `[name, value, ...]` list. */
  readonly headers?: string[];
}

/**
 * `head`: the request is a HEAD, whose answer has no body (so a route that issues ids must not
 * issue). `url`: the request's path and query (a route with a path parameter reads it there).
 */
type RouteHandler = (query: QueryParams, head: boolean, url: string) => Reply | Promise<Reply>;

const JSON_TYPE = 'application/json; charset=utf-8';
const ALLOW = 'GET, HEAD';
const UNMATCHED = 'unmatched';
/** Shared by every response; never mutated (node's writeHead only reads a header list). */
const JSON_HEADERS: string[] = [
  'content-type',
  JSON_TYPE,
  'cache-control',
  'no-store',
  'x-content-type-options',
  'nosniff',
];
const TEXT_HEADERS: string[] = [
  'content-type',
  'text/plain; charset=utf-8',
  'cache-control',
  'no-store',
  'x-content-type-options',
  'nosniff',
];
const LEAF_GET_PREFIX = '/api/snowflake/get/';
const KEY = /^[A-Za-z0-9_.-]{1,128}$/;

/** The `{key}` of a Leaf get path, validated (INVALID_ARGUMENT). */
function leafKey(url: string): string {
  const at = url.indexOf('?');
  const raw = url.slice(
    url.indexOf(LEAF_GET_PREFIX) + LEAF_GET_PREFIX.length,
    at < 0 ? undefined : at,
  );
  let key: string;
  try {
    key = decodeURIComponent(raw);
  } catch (cause) {
    throw new VestaError('INVALID_ARGUMENT', 'malformed percent-encoding in the key', { cause });
  }
  if (!KEY.test(key)) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      "the key must be 1 to 128 of A-Z, a-z, 0-9, '_', '-' and '.'",
      { details: { key: key.slice(0, 40) } },
    );
  }
  return key;
}

/** Leaf's rendering of an instant: Unix ms, then yyyy-MM-dd HH:mm:ss.SSS (here in UTC). */
function leafTimestamp(date: Date): string {
  const iso = date.toISOString();
  return `${date.getTime()}(${iso.slice(0, 10)} ${iso.slice(11, 23)})`;
}

/** The headers of an error reply of `status`, built once per status. */
function errorHeaders(status: number): string[] {
  const headers = [...JSON_HEADERS];
  if (status === 401) headers.push('www-authenticate', 'Bearer realm="vesta"');
  if (status === 405) headers.push('allow', ALLOW);
  if (status === 503) headers.push('retry-after', '1');
  return headers;
}

const ERROR_HEADERS = new Map<number, string[]>(
  [...new Set(Object.values(ERROR_CODES).map((row) => row.status))].map((status) => [
    status,
    errorHeaders(status),
  ]),
);

function ok(body: string): Reply {
  return { status: 200, body };
}

/** The answer to a HEAD of a route that issues ids: GET's headers, no body, no id consumed. */
const HEAD_OK: Reply = ok('');

/**
 * `Retry-After` of an OVERLOADED error: the wait it carries (`details.retryAfterMs`) in whole
 * seconds, at least 1 (the header takes no fractions, and 0 would invite a retry storm).
 */
function retryAfterSeconds(error: VestaError): number {
  const ms = error.details?.retryAfterMs;
  return typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? Math.ceil(ms / 1000) : 1;
}

function errorBody(code: VestaErrorCode, message: string): string {
  return `{"error":${JSON.stringify({ code, message })}}`;
}

/** The codes an error express itself raises keeps, found by its HTTP status. */
const FOREIGN_CODES: readonly VestaErrorCode[] = [
  'INVALID_ARGUMENT',
  'NOT_FOUND',
  'PAYLOAD_TOO_LARGE',
];

/** Errors express itself raises carry an HTTP status; keep the client ones, hide the rest. */
function codeOfForeign(error: unknown): VestaErrorCode {
  const status = (error as { status?: unknown } | null)?.status;
  return FOREIGN_CODES.find((code) => statusOf(code) === status) ?? 'INTERNAL_ERROR';
}

/** What a server built over the handlers answers in place of the service's own (a cluster worker's). */
export interface RestHandlerHooks {
  /** The answer of `/health` (status 200 or 503, a JSON body) in place of the service's health. */
  readonly health?: () => Promise<{ readonly status: number; readonly body: string }>;
}

/**
 * Builds the handlers of the REST API over validated options. Internal: `createRestApp`
 * mounts them in express, `startRestServer` also dispatches exact routes to them directly.
 */
export function createRestHandlers(
  options: ResolvedRestAppOptions,
  hooks: RestHandlerHooks = {},
): RestHandlers {
  const { service, generators, authToken, scrambler, maxBatch, maxQueryLength, metrics, logger } =
    options;
  const authorized = authToken === undefined ? undefined : createBearerTokenCheck(authToken);
  const info = service.info();
  const openApi = JSON.stringify(buildOpenApiDocument(info, maxBatch, authorized !== undefined));
  // The same rule as the service's codec for which layout decodes an id of each type.
  const codec = new IdConverter(vestaLayout(info.type, info.layout), info.epochMs);
  const layoutJson = new Map<IdType, string>();
  const layoutOf = (type: IdType): string => {
    let json = layoutJson.get(type);
    if (json === undefined) {
      const layout = codec.layoutOf(type);
      json = JSON.stringify({ ...layout.widths, unitMs: layout.unitMs });
      layoutJson.set(type, json);
    }
    return json;
  };

  const send = (
    res: ServerResponse,
    route: RequestRecorder,
    reply: Reply,
    started: number,
  ): void => {
    res.writeHead(reply.status, reply.headers ?? JSON_HEADERS);
    res.end(reply.body);
    route.record(reply.status, (performance.now() - started) / 1000);
  };

  const fail = (
    res: ServerResponse,
    route: RequestRecorder,
    label: string,
    error: unknown,
    started: number,
  ): void => {
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
    const status = statusOf(code);
    if (status >= 500 && code === 'INTERNAL_ERROR')
      logger.error({ err: error, route: label }, 'request failed');
    let headers = ERROR_HEADERS.get(status) ?? errorHeaders(status);
    if (code === 'OVERLOADED' && VestaError.is(error)) {
      headers = [...JSON_HEADERS, 'retry-after', String(retryAfterSeconds(error))];
    }
    res.writeHead(status, headers);
    res.end(errorBody(code, message));
    route.record(status, (performance.now() - started) / 1000);
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
        );
        if ('then' in reply) {
          return reply.then(
            (r) => send(res, routeMetrics, r, started),
            (error: unknown) => fail(res, routeMetrics, route.path, error, started),
          );
        } else {
          send(res, routeMetrics, reply, started);
        }
      } catch (error) {
        fail(res, routeMetrics, route.path, error, started);
      }
    };
  };

  const optionalType = (query: QueryParams) => {
    const raw = query.optional('type');
    return raw === undefined ? undefined : parseIdType(raw);
  };

  /** The scrambler when the query says `scrambled=true`; INVALID_ARGUMENT when the server has none. */
  const scramblerOf = (query: QueryParams) => {
    const raw = query.optional('scrambled');
    if (raw === undefined || raw === 'false') return undefined;
    if (raw !== 'true') {
      throw new VestaError(
        'INVALID_ARGUMENT',
        `scrambled must be true or false, got ${JSON.stringify(raw.slice(0, 40))}`,
      );
    }
    if (scrambler === undefined) {
      throw new VestaError(
        'INVALID_ARGUMENT',
        'scrambled=true needs a scramble key, and this server has none (--scramble-key)',
      );
    }
    return scrambler;
  };

  const formOf = (query: QueryParams) => {
    const raw = query.optional('format');
    return raw === undefined ? 'decimal' : parseIdForm(raw, 'format');
  };

  /** How the ids of a reply are written, checked before any id is issued. */
  const idWriter = (query: QueryParams): ((id: bigint) => string) | undefined => {
    const form = formOf(query);
    const scramble = scramblerOf(query);
    if (scramble !== undefined) return (id) => scramble.format(id, form);
    return form === 'decimal' ? undefined : (id) => formatId(id, form);
  };

  /** The reply of /genid: the id itself (decimal) or its text in the asked form. */
  const genIdReply = (id: bigint | string): Reply => {
    metrics.countIdsIssued(1);
    return ok(`{"id":"${id}"}`);
  };

  /** The generator a request names with `key`, or the service's own. */
  const generatorOf = (query: QueryParams): IdService => {
    const key = query.optional('key');
    return key === undefined ? service : generators.get(key);
  };

  const handlers: Record<RestPath, RouteHandler> = {
    '/genid': (query, head) => {
      const generator = generatorOf(query);
      const write = idWriter(query);
      if (head) return HEAD_OK;
      return generator
        .genId()
        .then(write === undefined ? genIdReply : (id) => genIdReply(write(id)));
    },
    '/genids': async (query, head) => {
      const count = query.requiredWhole('count');
      checkBatchCount(count, maxBatch);
      const generator = generatorOf(query);
      const write = idWriter(query);
      if (head) return HEAD_OK;
      const ids = await generator.genIds(count);
      metrics.countIdsIssued(count);
      return ok(`{"ids":["${(write === undefined ? ids : ids.map(write)).join('","')}"]}`);
    },
    '/expid': (query) => {
      const text = query.required('id');
      const form = formOf(query);
      const scramble = scramblerOf(query);
      const id = scramble === undefined ? parseId(text, form) : scramble.parse(text, form);
      const f = service.expId(id);
      const date = service.transTime(f.time, f.type).toISOString();
      return ok(
        `{"id":"${id}","machine":${f.machine},"seq":${f.seq},"time":${f.time},"genMethod":${f.genMethod},` +
          `"type":${f.type},"version":${f.version},"date":"${date}","layout":${layoutOf(f.type)}}`,
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
      const write = idWriter(query);
      const id = service.makeId(fields);
      return ok(`{"id":"${write === undefined ? id : write(id)}"}`);
    },
    '/info': () =>
      ok(
        JSON.stringify({
          ...service.info(),
          maxBatch,
          auth: authorized !== undefined,
          scrambling: scrambler !== undefined,
        }),
      ),
    '/generators': () => ok(JSON.stringify({ generators: generators.list() })),
    '/health': () => {
      if (hooks.health !== undefined) return hooks.health();
      const health = service.health();
      if (health.ok) return ok('{"status":"ok"}');
      return {
        status: 503,
        body: `{"status":"unavailable",${errorBody(health.code, health.message).slice(1)}`,
      };
    },
    '/metrics': async () => {
      const { contentType, body } = await metrics.render();
      return {
        status: 200,
        body,
        headers: [
          'content-type',
          contentType,
          'cache-control',
          'no-store',
          'x-content-type-options',
          'nosniff',
        ],
      };
    },
    '/api/snowflake/get/{key}': (_query, head, url) => {
      // Leaf's snowflake mode ignores the key, and Leaf's clients send their own: the named
      // generator of that name when the server has one, else the server's own.
      const generator = generators.find(leafKey(url)) ?? service;
      if (head) return { status: 200, body: '', headers: TEXT_HEADERS };
      return generator.genId().then((id) => {
        metrics.countIdsIssued(1);
        return { status: 200, body: String(id), headers: TEXT_HEADERS };
      });
    },
    '/api/snowflake/decodeSnowflakeId': (query) => {
      const f = service.expId(parseId(query.required('snowflakeId')));
      const date = service.transTime(f.time, f.type);
      return ok(
        JSON.stringify({
          timestamp: leafTimestamp(date),
          workerId: String(f.machine),
          sequenceId: String(f.seq),
        }),
      );
    },
    '/openapi.json': () => ok(openApi),
  };

  const routes = new Map<string, HttpHandler>();
  const methodNotAllowed = new Map<string, HttpHandler>();
  for (const route of REST_ROUTES) routes.set(route.path, serve(route, handlers[route.path]));
  // The id page and the API documentation: open (the page asks for the token itself), and
  // like every route strict about its query.
  const pages = new Set<string>();
  for (const [path, asset] of loadPageAssets()) {
    pages.add(path);
    const reply: Reply = { status: 200, body: asset.body, headers: asset.headers };
    routes.set(
      path,
      serve({ path, params: [], open: true }, () => reply),
    );
  }
  for (const path of routes.keys()) {
    const routeMetrics = metrics.requestRecorder(path);
    methodNotAllowed.set(path, (req, res) =>
      fail(
        res,
        routeMetrics,
        path,
        new VestaError(
          'METHOD_NOT_ALLOWED',
          `${path} answers GET and HEAD, not ${req.method ?? ''}`,
        ),
        performance.now(),
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
      fail(
        res,
        unmatched,
        UNMATCHED,
        new VestaError(
          'NOT_FOUND',
          `no route ${JSON.stringify(shown)}; GET /openapi.json lists them`,
        ),
        performance.now(),
      );
    },
    failed(res: ServerResponse, error: unknown): void {
      fail(res, unmatched, UNMATCHED, error, performance.now());
    },
  });
}
