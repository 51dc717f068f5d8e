import { silentLogger, VestaError, type Logger, wholeNumberOption } from '@vesta/core';
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
    metrics,
    logger: logger ?? silentLogger,
    service: Object.freeze({ ...service, maxBatch: resolvedMaxBatch }),
  });
}
