import { STATUS_CODES, type ServerResponse } from 'node:http';
import { ERROR_CODES, VestaError, type Logger, type VestaErrorCode } from '@vesta/core';
import { statusOf } from '@vesta/core/kit';
import type { RequestRecorder } from '@vesta/metrics';

/** The access log: one debug line per answered request, when the logger's debug lines are on. */
export function accessLog(
  logger: Logger,
  res: ServerResponse,
  route: string,
  started: number,
  ids = 0,
) {
  if (logger.debug === undefined || logger.isLevelEnabled?.('debug') === false) return;
  const ms = Math.round((performance.now() - started) * 1000) / 1000;
  logger.debug({ method: res.req?.method, route, status: res.statusCode, ms, ids }, 'request');
}

/** Shared by every response; never mutated (node's writeHead only reads a header list). */
export const JSON_HEADERS: string[] = [
  'content-type',
  'application/json; charset=utf-8',
  'cache-control',
  'no-store',
  'x-content-type-options',
  'nosniff',
];

/** The headers of an error reply of `status`, built once per status. */
function errorHeaders(status: number, retryAfter = 1): string[] {
  const headers = [...JSON_HEADERS];
  if (status === 401) headers.push('www-authenticate', 'Bearer realm="vesta"');
  if (status === 405) headers.push('allow', 'GET, HEAD');
  if (status === 503) headers.push('retry-after', String(retryAfter));
  return headers;
}

const ERROR_HEADERS = new Map<number, string[]>(
  Object.values(ERROR_CODES).map(({ status }) => [status, errorHeaders(status)]),
);

/** `Retry-After` of an OVERLOADED error: its `details.retryAfterMs` in whole seconds, at least 1. */
const retryAfterSeconds = (ms: unknown): number =>
  typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? Math.ceil(ms / 1000) : 1;

/** The body of an error answer: `{"error":{"code","message"}}`. */
export function errorBody(code: VestaErrorCode, message: string): string {
  return `{"error":${JSON.stringify({ code, message })}}`;
}

/** The code of an error the framework raised, by its status: client ones kept, others hidden. */
function codeOfForeign(error: unknown): VestaErrorCode {
  const raised = error as { status?: unknown; statusCode?: unknown } | null;
  const status = raised?.status ?? raised?.statusCode;
  const kept: VestaErrorCode[] = ['INVALID_ARGUMENT', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE'];
  return kept.find((code) => statusOf(code) === status) ?? 'INTERNAL_ERROR';
}

/** Answers a failed request with its coded error and records it; a response under way is cut. */
export function sendRestError(
  logger: Logger,
  res: ServerResponse,
  route: RequestRecorder,
  label: string,
  error: unknown,
  started = performance.now(),
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const own = VestaError.is(error) && error.code !== 'INTERNAL_ERROR';
  const code = own ? error.code : codeOfForeign(error);
  const message = own
    ? error.message
    : code === 'INTERNAL_ERROR'
      ? 'internal error; the server log has the details'
      : String((error as Error).message);
  const status = statusOf(code);
  if (code === 'INTERNAL_ERROR') logger.error({ err: error, route: label }, 'request failed');
  res.writeHead(
    status,
    code === 'OVERLOADED' && VestaError.is(error)
      ? errorHeaders(status, retryAfterSeconds(error.details?.retryAfterMs))
      : (ERROR_HEADERS.get(status) ?? errorHeaders(status)),
  );
  res.end(errorBody(code, message));
  route.record(status, (performance.now() - started) / 1000);
  accessLog(logger, res, label, started);
}

/** A whole HTTP/1.1 error answer that closes the connection, for a socket without a response. */
export function rawErrorResponse(
  code: VestaErrorCode,
  message: string,
  extraHeaders: readonly string[] = [],
): string {
  const status = statusOf(code);
  const body = errorBody(code, message);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\nCache-Control: no-store\r\n' +
    extraHeaders.map((h) => `${h}\r\n`).join('') +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}
