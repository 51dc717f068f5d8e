import {
  GenMethod,
  SERVER_MACHINE_ID_RANGE,
  checkMachineIdInRange,
  silentLogger,
  VestaError,
  type IdService,
  type Logger,
} from '@vesta/core';
import { createVestaMetrics, type VestaMetrics } from '@vesta/metrics';

/** The largest batch of one `/genids` request when none is set. */
export const DEFAULT_REST_MAX_BATCH = 10_000;

/** The longest query string accepted when none is set. */
export const DEFAULT_MAX_QUERY_LENGTH = 1024;

/** Options of {@link createRestApp}. */
export interface RestAppOptions {
  /**
   * The id service the app publishes: genMethod 2 (REST), machine id 924-1023. Build it with
   * `createRestIdService`; another genMethod is INVALID_OPTIONS, another machine id
   * MACHINE_ID_OUT_OF_RANGE.
   */
  readonly service: IdService;
  /**
   * When set, every route but `/health` needs `Authorization: Bearer <token>` (compared in
   * constant time). 1 to 1024 visible ASCII characters.
   * @default undefined (no auth)
   */
  readonly authToken?: string;
  /** The largest `count` of `/genids`; at most the service's own max batch. @default 10000 */
  readonly maxBatch?: number;
  /** The longest query string (after `?`) accepted; longer is PAYLOAD_TOO_LARGE (413). @default 1024 */
  readonly maxQueryLength?: number;
  /** The metrics `/metrics` exposes; pass the ones whose observer the service reports to. @default createVestaMetrics() */
  readonly metrics?: VestaMetrics;
  /** Where failures go (a pino logger fits). Request errors of status 500 are logged with their stack. @default silent */
  readonly logger?: Logger;
}

/** {@link RestAppOptions} after validation. */
export interface ResolvedRestAppOptions {
  readonly service: IdService;
  readonly authToken: string | undefined;
  readonly maxBatch: number;
  readonly maxQueryLength: number;
  readonly metrics: VestaMetrics;
  readonly logger: Logger;
}

const KNOWN = new Set(['service', 'authToken', 'maxBatch', 'maxQueryLength', 'metrics', 'logger']);

function invalid(message: string): VestaError {
  return new VestaError('INVALID_OPTIONS', message);
}

/** Checks an auth token: INVALID_OPTIONS unless 1 to 1024 visible ASCII characters. */
export function checkAuthToken(token: unknown): string | undefined {
  if (token === undefined) return undefined;
  if (typeof token !== 'string' || !/^[\x21-\x7e]{1,1024}$/.test(token)) {
    throw invalid('authToken must be 1 to 1024 visible ASCII characters, without spaces');
  }
  return token;
}

/** Validates the options once and freezes them. */
export function resolveRestAppOptions(options: RestAppOptions): ResolvedRestAppOptions {
  if (typeof options !== 'object' || options === null) throw invalid('options must be an object');
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw invalid(`unknown option ${JSON.stringify(key)}`);
  }
  const { service } = options;
  if (typeof service !== 'object' || service === null || typeof service.genId !== 'function') {
    throw invalid('service must be an id service (createRestIdService)');
  }
  const info = service.info();
  if (info.genMethod !== GenMethod.REST) {
    throw invalid(
      `the REST mode publishes ids of genMethod ${GenMethod.REST}, the service has ${info.genMethod}`,
    );
  }
  checkMachineIdInRange(info.machine, SERVER_MACHINE_ID_RANGE, 'the machine id of a REST server');
  const maxBatch = options.maxBatch ?? Math.min(DEFAULT_REST_MAX_BATCH, info.maxBatch);
  if (!Number.isInteger(maxBatch) || maxBatch < 1 || maxBatch > info.maxBatch) {
    throw invalid(
      `maxBatch must be a whole number from 1 to the service's ${info.maxBatch}, got ${String(maxBatch)}`,
    );
  }
  const maxQueryLength = options.maxQueryLength ?? DEFAULT_MAX_QUERY_LENGTH;
  if (!Number.isInteger(maxQueryLength) || maxQueryLength < 64 || maxQueryLength > 8192) {
    throw invalid(
      `maxQueryLength must be a whole number from 64 to 8192, got ${String(maxQueryLength)}`,
    );
  }
  return Object.freeze({
    service,
    authToken: checkAuthToken(options.authToken),
    maxBatch,
    maxQueryLength,
    metrics: options.metrics ?? createVestaMetrics(),
    logger: options.logger ?? silentLogger,
  });
}
