import {
  GenMethod,
  IdGenerators,
  machineIdRanges,
  silentLogger,
  VestaError,
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
  segmentsOption,
} from '@vesta/core/kit';
import { createVestaMetrics, type VestaMetrics } from '@vesta/metrics';
import type { z } from 'zod';
import { DEFAULT_REST_MAX_BATCH } from './defaults.js';

/** The longest query string accepted when none is set. */
export const DEFAULT_MAX_QUERY_LENGTH = 1024;

/** The options the app and the standalone server share (the README's tables say more). */
export const sharedRestOptions = {
  /** The key (at least 16 bytes) or `IdScrambler` of `scrambled=true`; never logged. @default none */
  scrambleKey: scrambleKeyOption,
  /** Segment mode's numbers (`createSegmentService`; not closed for you). @default none */
  segments: segmentsOption,
  /** The longest query string (after `?`) accepted; longer is PAYLOAD_TOO_LARGE (413). @default 1024 */
  maxQueryLength: wholeNumber(64, 8192).default(DEFAULT_MAX_QUERY_LENGTH),
  /** The metrics `/metrics` exposes; pass the ones whose observer the service reports to. @default createVestaMetrics() */
  metrics: objectWith<VestaMetrics>(
    'VestaMetrics (createVestaMetrics)',
    'requestRecorder',
  ).optional(),
};

/** The declaration of {@link RestAppOptions}, the options of {@link createRestApp}. */
export const restAppOptions = defineOptions('REST app', {
  /** The id service the app publishes (`createRestIdService`: genMethod 2, machine id 924-1023). */
  service: objectWith<IdService>('an id service (createRestIdService)', 'genId', 'info'),
  /** Named generators over `service`, for `?key=<name>`. @default only `default`, the service */
  generators: objectWith<IdGenerators>('IdGenerators over the service', 'get', 'list').optional(),
  /** Every route but `/health` then needs `Authorization: Bearer <token>`. @default none */
  authToken: authTokenOption.optional(),
  ...sharedRestOptions,
  /** The largest `count` of `/genids`; at most the service's own max batch. @default 10000 */
  maxBatch: wholeNumber(1, 10_000_000).optional(),
  /** Where failures go (a pino logger fits). Request errors of status 500 are logged with their stack. @default silent */
  logger: objectWith<Logger>('a Logger (info, warn, error)', 'info', 'warn', 'error').default(
    silentLogger,
  ),
});

/** Options of {@link createRestApp}: see {@link restAppOptions} for each. */
export type RestAppOptions = Readonly<z.input<typeof restAppOptions.schema>>;

/** {@link RestAppOptions} after validation (what {@link resolveRestAppOptions} returns). */
export type ResolvedRestAppOptions = ReturnType<typeof resolveRestAppOptions>;

/** Validates the options once and freezes them. */
export function resolveRestAppOptions(options: RestAppOptions) {
  const { scrambleKey, ...o } = restAppOptions.resolve(options);
  const info = o.service.info();
  // A layout without a genMethod field (the non-Vesta presets) records none; its range tells.
  if (info.layout.genMethodBits > 0 && info.genMethod !== GenMethod.REST) {
    const why = `the REST mode publishes ids of genMethod ${GenMethod.REST}, the service has ${info.genMethod}`;
    throw new VestaError('INVALID_OPTIONS', why);
  }
  const range = machineIdRanges(info.layout).server;
  checkMachineIdInRange(info.machine, range, 'the machine id of a REST server');
  const maxBatch = o.maxBatch ?? Math.min(DEFAULT_REST_MAX_BATCH, info.maxBatch);
  if (maxBatch > info.maxBatch) {
    const why = `maxBatch must be a whole number from 1 to the service's ${info.maxBatch}, got ${maxBatch}`;
    throw new VestaError('INVALID_OPTIONS', why);
  }
  if (o.generators !== undefined && o.generators.default !== o.service) {
    throw new VestaError('INVALID_OPTIONS', "generators must be built over the app's service");
  }
  const metrics = o.metrics ?? createVestaMetrics();
  return Object.freeze({
    ...o,
    generators: o.generators ?? IdGenerators.only(o.service, metrics.generatorsObserver),
    /** The scramble of `scrambleKey`, when given. */
    scrambler: scrambleKey,
    maxBatch,
    metrics,
  });
}
