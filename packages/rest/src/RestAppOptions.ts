import {
  GenMethod,
  IdGenerators,
  machineIdRanges,
  silentLogger,
  VestaError,
  type IdScrambler,
  type IdService,
  type Logger,
} from '@vesta/core';
import {
  authTokenOption,
  checkMachineIdInRange,
  defineOptions,
  objectWith,
  scrambleKeyOption,
  wholeNumber,
} from '@vesta/core/kit';
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
   * Named generators over `service` (`IdGenerators.create(service, ...)`), asked for with
   * `?key=<name>` on `/genid` and `/genids`; `/generators` lists them.
   * @default only `default`, the service itself
   */
  readonly generators?: IdGenerators;
  /**
   * When set, every route but `/health` needs `Authorization: Bearer <token>` (compared in
   * constant time). 1 to 1024 visible ASCII characters.
   * @default undefined (no auth)
   */
  readonly authToken?: string;
  /**
   * The key of the ids' scramble (at least 16 bytes), or an `IdScrambler` built from one: with it, `scrambled=true`
   * on /genid, /genids, /makeid and /expid writes and reads scrambled ids (obfuscation, not
   * encryption). Kept only as derived round keys; never logged, never in /info.
   * @default undefined (`scrambled=true` is INVALID_ARGUMENT)
   */
  readonly scrambleKey?: string | IdScrambler;
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
  readonly generators: IdGenerators;
  readonly authToken: string | undefined;
  /** The scramble of `scrambleKey`, when given. */
  readonly scrambler: IdScrambler | undefined;
  readonly maxBatch: number;
  readonly maxQueryLength: number;
  readonly metrics: VestaMetrics;
  readonly logger: Logger;
}

/** The declaration of {@link RestAppOptions}; `maxBatch` is checked against the service after it. */
export const restAppOptions = defineOptions('REST app', {
  service: objectWith<IdService>('an id service (createRestIdService)', 'genId', 'info'),
  generators: objectWith<IdGenerators>('IdGenerators over the service', 'get', 'list').optional(),
  authToken: authTokenOption.optional(),
  scrambleKey: scrambleKeyOption,
  maxBatch: wholeNumber(1, 10_000_000).optional(),
  maxQueryLength: wholeNumber(64, 8192).default(DEFAULT_MAX_QUERY_LENGTH),
  metrics: objectWith<VestaMetrics>(
    'VestaMetrics (createVestaMetrics)',
    'requestRecorder',
  ).optional(),
  logger: objectWith<Logger>('a Logger (info, warn, error)', 'info', 'warn', 'error').default(
    silentLogger,
  ),
});

/** Validates the options once and freezes them. */
export function resolveRestAppOptions(options: RestAppOptions): ResolvedRestAppOptions {
  const o = restAppOptions.resolve(options);
  const info = o.service.info();
  // A layout without a genMethod field (the non-Vesta presets) records none; its range tells.
  if (info.layout.genMethodBits > 0 && info.genMethod !== GenMethod.REST) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `the REST mode publishes ids of genMethod ${GenMethod.REST}, the service has ${info.genMethod}`,
    );
  }
  checkMachineIdInRange(
    info.machine,
    machineIdRanges(info.layout).server,
    'the machine id of a REST server',
  );
  const maxBatch = o.maxBatch ?? Math.min(DEFAULT_REST_MAX_BATCH, info.maxBatch);
  if (maxBatch > info.maxBatch) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `maxBatch must be a whole number from 1 to the service's ${info.maxBatch}, got ${maxBatch}`,
    );
  }
  if (o.generators !== undefined && o.generators.default !== o.service) {
    throw new VestaError('INVALID_OPTIONS', "generators must be built over the app's service");
  }
  const metrics = o.metrics ?? createVestaMetrics();
  return Object.freeze({
    service: o.service,
    generators: o.generators ?? IdGenerators.only(o.service, metrics.generatorsObserver),
    authToken: o.authToken,
    scrambler: o.scrambleKey,
    maxBatch,
    maxQueryLength: o.maxQueryLength,
    metrics,
    logger: o.logger,
  });
}
