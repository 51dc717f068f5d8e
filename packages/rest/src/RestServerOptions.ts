import { VestaError, type IdGeneratorsOptions, type IdScrambler, type Logger } from '@vesta/core';
import {
  defineOptions,
  objectWith,
  resolveStateDir,
  scrambleKeyOption,
  serverOptionsShape,
  splitOptions,
  wholeNumber,
} from '@vesta/core/kit';
import type { VestaMetrics } from '@vesta/metrics';
import { pino } from 'pino';
import type { RestIdServiceOptions } from './createRestIdService.js';
import { DEFAULT_MAX_QUERY_LENGTH, DEFAULT_REST_MAX_BATCH } from './RestAppOptions.js';

/**
 * Options of {@link startRestServer}: the id service's (less genMethod, machine-id range and
 * observer, which the REST mode sets) plus where to listen. The listener's defaults are every
 * server's (`serverOptionsShape` in core): loopback, the time mark in `./.vesta-state`, a
 * connection cap below the open-files limit, pino logging.
 */
export interface RestServerOptions extends Omit<
  RestIdServiceOptions,
  'observer' | 'logger' | 'maxBatch' | 'stateDir'
> {
  /** The address to listen on. @default '127.0.0.1' */
  readonly host?: string;
  /** The port; 0 asks the OS for a free one (read it from the handle). @default 8080 */
  readonly port?: number;
  /**
   * Directory where the time high-water mark survives restarts (relative to the working
   * directory), so a restarted server never reissues ids even after a clock step back. `false`
   * keeps it in memory only.
   * @default '.vesta-state'
   */
  readonly stateDir?: string | false;
  /** Require `Authorization: Bearer <token>` on every route but /health: 1 to 1024 visible ASCII characters. @default undefined (no auth) */
  readonly authToken?: string;
  /**
   * The key of the ids' scramble (at least 16 bytes; `vesta rest --scramble-key` or
   * `VESTA_SCRAMBLE_KEY`): `scrambled=true` on a route writes or reads scrambled ids. Never
   * logged, never in /info. See `RestAppOptions.scrambleKey`.
   * @default undefined (no scrambling)
   */
  readonly scrambleKey?: string | IdScrambler;
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
   * @default max(30000, headersTimeoutMs)
   */
  readonly requestTimeoutMs?: number;
  /** The metrics to export and feed. @default createVestaMetrics() */
  readonly metrics?: VestaMetrics;
  /**
   * Named generators, asked for with `?key=<name>` (see `IdGeneratorsOptions` in core): names
   * share the server's generator (ids unique across all names) unless given a shape and
   * machine id of their own.
   * @default only `default`
   */
  readonly generators?: IdGeneratorsOptions;
  /** Where start-up, shutdown and failures are logged (a pino logger fits). @default pino at level 'info' on stdout */
  readonly logger?: Logger;
}

/** The listening part of {@link RestServerOptions} after validation. */
export interface ResolvedRestServerOptions {
  readonly host: string;
  readonly port: number;
  readonly authToken: string | undefined;
  /** The scramble of `scrambleKey`, when given (the key itself is not kept). */
  readonly scrambler: IdScrambler | undefined;
  readonly maxBatch: number;
  readonly maxQueryLength: number;
  readonly shutdownTimeoutMs: number;
  readonly maxConnections: number;
  readonly maxPipelinedRequests: number;
  readonly maxRequestsInFlight: number;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly metrics: VestaMetrics | undefined;
  readonly generators: IdGeneratorsOptions;
  readonly logger: Logger;
  /** What is left: the id service's own options (validated by the core). */
  readonly service: RestIdServiceOptions;
}

/** The default port of `vesta rest`. */
export const DEFAULT_REST_PORT = 8080;

/** The declaration of the REST listener's options; the rest are the id service's. */
export const restListenerOptions = defineOptions('REST server', {
  ...serverOptionsShape(DEFAULT_REST_PORT),
  scrambleKey: scrambleKeyOption,
  maxBatch: wholeNumber(1, 10_000_000).default(DEFAULT_REST_MAX_BATCH),
  maxQueryLength: wholeNumber(64, 8192).default(DEFAULT_MAX_QUERY_LENGTH),
  shutdownTimeoutMs: wholeNumber(0, 600_000).default(10_000),
  maxPipelinedRequests: wholeNumber(0, 1024).default(16),
  maxRequestsInFlight: wholeNumber(1, 1_000_000).default(1024),
  headersTimeoutMs: wholeNumber(100, 600_000).default(10_000),
  requestTimeoutMs: wholeNumber(100, 3_600_000).optional(),
  metrics: objectWith<VestaMetrics>(
    'VestaMetrics (createVestaMetrics)',
    'requestRecorder',
  ).optional(),
});

const LISTENER_KEYS = new Set(Object.keys(restListenerOptions.schema.shape));

/** Splits and validates the options once; the id service's part is validated by the core. */
export function resolveRestServerOptions(
  options: RestServerOptions,
  cwd: string = process.cwd(),
): ResolvedRestServerOptions {
  const { own: listener, rest: service } = splitOptions(LISTENER_KEYS, options);
  const o = restListenerOptions.resolve(listener);
  const requestTimeoutMs = o.requestTimeoutMs ?? Math.max(30_000, o.headersTimeoutMs);
  if (requestTimeoutMs < o.headersTimeoutMs) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `requestTimeoutMs must be at least headersTimeoutMs (${o.headersTimeoutMs}), got ${requestTimeoutMs}`,
    );
  }
  const stateDir = resolveStateDir(o.stateDir, cwd);
  return Object.freeze({
    host: o.host,
    port: o.port,
    authToken: o.authToken,
    scrambler: o.scrambleKey,
    maxBatch: o.maxBatch,
    maxQueryLength: o.maxQueryLength,
    shutdownTimeoutMs: o.shutdownTimeoutMs,
    maxConnections: o.maxConnections,
    maxPipelinedRequests: o.maxPipelinedRequests,
    maxRequestsInFlight: o.maxRequestsInFlight,
    headersTimeoutMs: o.headersTimeoutMs,
    requestTimeoutMs,
    metrics: o.metrics,
    generators: o.generators,
    logger: o.logger ?? pino({ name: 'vesta-rest' }),
    service: Object.freeze({
      ...service,
      maxBatch: o.maxBatch,
      ...(stateDir === undefined ? {} : { stateDir }),
    }) as RestIdServiceOptions,
  });
}
