import { VestaError } from '@vesta/core';
import {
  defineOptions,
  resolveStateDir,
  serverOptionsShape,
  splitOptions,
  wholeNumber,
} from '@vesta/core/kit';
import { pino } from 'pino';
import type { z } from 'zod';
import type { RestIdServiceOptions } from './createRestIdService.js';
import { sharedRestOptions } from './RestAppOptions.js';
import { DEFAULT_REST_MAX_BATCH, DEFAULT_REST_PORT } from './defaults.js';

/** The REST listener's options (the rest of {@link RestServerOptions} are the id service's). */
export const restListenerOptions = defineOptions('REST server', {
  ...serverOptionsShape(DEFAULT_REST_PORT),
  ...sharedRestOptions,
  /** The largest `count` of `/genids`. @default 10000 */
  maxBatch: wholeNumber(1, 10_000_000).default(DEFAULT_REST_MAX_BATCH),
  /** On close, how long requests in flight may take before their connections are cut. @default 10000 */
  shutdownTimeoutMs: wholeNumber(0, 600_000).default(10_000),
  /** Requests of one connection that may wait behind the one answered; one more closes it. @default 16 */
  maxPipelinedRequests: wholeNumber(0, 1024).default(16),
  /** Answers computed or flushed at once over all connections; a request beyond is 503 OVERLOADED. @default 1024 */
  maxRequestsInFlight: wholeNumber(1, 1_000_000).default(1024),
  /** The longest a connection may take to send a whole request head (408, then closed). @default 10000 */
  headersTimeoutMs: wholeNumber(100, 600_000).default(10_000),
  /** The longest a request may take to arrive whole and be answered. @default max(30000, headersTimeoutMs) */
  requestTimeoutMs: wholeNumber(100, 3_600_000).optional(),
});

/** Options of {@link startRestServer}: the id service's and the listener's. */
export type RestServerOptions = Omit<
  RestIdServiceOptions,
  'observer' | 'logger' | 'maxBatch' | 'stateDir'
> &
  Readonly<z.input<typeof restListenerOptions.schema>>;

/** The listening part of {@link RestServerOptions} after validation, and the service's part. */
export type ResolvedRestServerOptions = ReturnType<typeof resolveRestServerOptions>;

const LISTENER_KEYS = new Set(Object.keys(restListenerOptions.schema.shape));

/** Splits and validates the options once; the id service's part is validated by the core. */
export function resolveRestServerOptions(options: RestServerOptions, cwd: string = process.cwd()) {
  const { own, rest: service } = splitOptions(LISTENER_KEYS, options);
  const { scrambleKey, stateDir, ...o } = restListenerOptions.resolve(own);
  const requestTimeoutMs = o.requestTimeoutMs ?? Math.max(30_000, o.headersTimeoutMs);
  if (requestTimeoutMs < o.headersTimeoutMs) {
    const why = `requestTimeoutMs must be at least headersTimeoutMs (${o.headersTimeoutMs}), got ${requestTimeoutMs}`;
    throw new VestaError('INVALID_OPTIONS', why);
  }
  const dir = resolveStateDir(stateDir, cwd);
  return Object.freeze({
    ...o,
    requestTimeoutMs,
    /** The scramble of `scrambleKey`, when given (the key itself is not kept). */
    scrambler: scrambleKey,
    logger: o.logger ?? pino({ name: 'vesta-rest' }),
    /** The id service's own options (validated by the core). */
    service: Object.freeze({
      ...service,
      maxBatch: o.maxBatch,
      ...(dir === undefined ? {} : { stateDir: dir }),
    }) as RestIdServiceOptions,
  });
}
