import type { ParamsOf, RestPath } from './restRoutes.js';

/** A route's answer, written by the handler that serves the route. */
export interface RestReply {
  readonly status: number;
  readonly body: string | Buffer;
  /** Pre-built response headers, as a flat `[name, value, ...]` list. */
  readonly headers?: string[];
  /** Ids issued by the request, for the access log. @default 0 */
  readonly ids?: number;
}

/** Answers the route of `P`; on a `head` request a route that issues must not; `flow`: the connection. */
export type RouteHandler<P extends RestPath> = (
  params: ParamsOf<P>,
  head: boolean,
  flow: object,
) => RestReply | Promise<RestReply>;

/** The handlers of some routes, by path. */
export type RouteTable<P extends RestPath> = { readonly [K in P]: RouteHandler<K> };

/** Shared by every response; never mutated (node's writeHead only reads a header list). */
export const JSON_HEADERS: string[] = [
  'content-type',
  'application/json; charset=utf-8',
  'cache-control',
  'no-store',
  'x-content-type-options',
  'nosniff',
];

/** A 200 with a JSON body. */
export function ok(body: string, ids?: number): RestReply {
  return ids === undefined ? { status: 200, body } : { status: 200, body, ids };
}

/** The answer to a HEAD of a route that issues ids: GET's headers, no body, no id consumed. */
export const HEAD_OK: RestReply = ok('');

/** The headers of a plain-text answer (Leaf's paths answer the number alone). */
export const TEXT_HEADERS: string[] = [
  'content-type',
  'text/plain; charset=utf-8',
  ...JSON_HEADERS.slice(2),
];
