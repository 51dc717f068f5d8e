import {
  silentLogger,
  VestaError,
  type Logger,
  wholeNumberOption,
  defaultMaxConnections,
} from '@vesta/core';
import type { VestaMetrics } from '@vesta/metrics';
import type { RestIdServiceOptions } from './createRestIdService.js';
import {
  checkAuthToken,
  DEFAULT_MAX_QUERY_LENGTH,
  DEFAULT_REST_MAX_BATCH,
} from './RestAppOptions.js';

/**
 * Options of {@link startRestServer}: the id service's (less genMethod, machine-id range and
 * observer, which the REST mode sets) plus where to listen.
 */
export interface RestServerOptions extends Omit<
  RestIdServiceOptions,
  'observer' | 'logger' | 'maxBatch'
> {
  /** The address to listen on. @default '127.0.0.1' */
  readonly host?: string;
  /** The port; 0 asks the OS for a free one (read it from the handle). @default 8080 */
  readonly port?: number;
  /** Require `Authorization: Bearer <token>` on every route but /health. @default undefined (no auth) */
  readonly authToken?: string;
  /** The largest `count` of `/genids`. @default 10000 */
  readonly maxBatch?: number;
  /** The longest query string accepted (413 beyond). @default 1024 */
  readonly maxQueryLength?: number;
  /** On close, how long requests in flight may take before their connections are cut. @default 10000 */
  readonly shutdownTimeoutMs?: number;
  /**
   * Connections open at once. At the cap a new connection closes the one that has waited
   * longest with no request in progress; only when all are being served is it refused (503).
   * @default 90% of the soft open-files limit (`/proc/self/limits`), 16 to 65536; 921 when unreadable
   */
  readonly maxConnections?: number;
  /**
   * Requests of one connection that may wait behind the one being answered (answers go out one
   * at a time, the next once the previous is flushed); one more closes the connection.
   * @default 16
   */
  readonly maxPipelinedRequests?: number;
  /** Answers computed or flushed at once over all connections; a request beyond is 503 OVERLOADED. @default 1024 */
  readonly maxRequestsInFlight?: number;
  /** The longest a connection may take to send a whole request head (408, then closed). @default 10000 */
  readonly headersTimeoutMs?: number;
  /**
   * The longest a request may take to arrive whole, and its answer to be flushed to the client
   * (a client that does not read is cut). At least `headersTimeoutMs`.
   * @default 30000
   */
  readonly requestTimeoutMs?: number;
  /** The metrics to export and feed. @default createVestaMetrics() */
  readonly metrics?: VestaMetrics;
  /** Where start-up, shutdown and failures are logged (a pino logger fits). @default silent */
  readonly logger?: Logger;
}

/** The listening part of {@link RestServerOptions} after validation. */
export interface ResolvedRestServerOptions {
  readonly host: string;
  readonly port: number;
  readonly authToken: string | undefined;
  readonly maxBatch: number;
  readonly maxQueryLength: number;
  readonly shutdownTimeoutMs: number;
  readonly maxConnections: number;
  readonly maxPipelinedRequests: number;
  readonly maxRequestsInFlight: number;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly metrics: VestaMetrics | undefined;
  readonly logger: Logger;
  /** What is left: the id service's own options. */
  readonly service: RestIdServiceOptions;
}

/** The default port of `vesta rest`. */
export const DEFAULT_REST_PORT = 8080;

function invalid(message: string): VestaError {
  return new VestaError('INVALID_OPTIONS', message);
}

/** Splits and validates the options once; the id service's part is validated by the core. */
export function resolveRestServerOptions(options: RestServerOptions): ResolvedRestServerOptions {
  if (typeof options !== 'object' || options === null) throw invalid('options must be an object');
  const {
    host,
    port,
    authToken,
    maxBatch,
    maxQueryLength,
    shutdownTimeoutMs,
    maxConnections,
    maxPipelinedRequests,
    maxRequestsInFlight,
    headersTimeoutMs,
    requestTimeoutMs,
    metrics,
    logger,
    ...service
  } = options;
  if (host !== undefined && (typeof host !== 'string' || host.trim() === ''))
    throw invalid('host must be a non-empty string');
  const resolvedMaxBatch = wholeNumberOption(
    'maxBatch',
    maxBatch,
    DEFAULT_REST_MAX_BATCH,
    1,
    10_000_000,
  );
  const resolvedHeadersTimeoutMs = wholeNumberOption(
    'headersTimeoutMs',
    headersTimeoutMs,
    10_000,
    100,
    600_000,
  );
  return Object.freeze({
    host: host ?? '127.0.0.1',
    port: wholeNumberOption('port', port, DEFAULT_REST_PORT, 0, 65_535),
    authToken: checkAuthToken(authToken),
    maxBatch: resolvedMaxBatch,
    maxQueryLength: wholeNumberOption(
      'maxQueryLength',
      maxQueryLength,
      DEFAULT_MAX_QUERY_LENGTH,
      64,
      8192,
    ),
    shutdownTimeoutMs: wholeNumberOption(
      'shutdownTimeoutMs',
      shutdownTimeoutMs,
      10_000,
      0,
      600_000,
    ),
    maxConnections: wholeNumberOption(
      'maxConnections',
      maxConnections,
      defaultMaxConnections(),
      1,
      1_000_000,
    ),
    maxPipelinedRequests: wholeNumberOption(
      'maxPipelinedRequests',
      maxPipelinedRequests,
      16,
      0,
      1024,
    ),
    maxRequestsInFlight: wholeNumberOption(
      'maxRequestsInFlight',
      maxRequestsInFlight,
      1024,
      1,
      1_000_000,
    ),
    headersTimeoutMs: resolvedHeadersTimeoutMs,
    requestTimeoutMs: wholeNumberOption(
      'requestTimeoutMs',
      requestTimeoutMs,
      Math.max(30_000, resolvedHeadersTimeoutMs),
      resolvedHeadersTimeoutMs,
      3_600_000,
    ),
    metrics,
    logger: logger ?? silentLogger,
    service: Object.freeze({ ...service, maxBatch: resolvedMaxBatch }),
  });
}
