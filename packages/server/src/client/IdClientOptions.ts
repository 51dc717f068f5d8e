import {
  consoleLogger,
  systemTimeSource,
  VestaError,
  type IdType,
  type LayoutOption,
  type Logger,
} from '@vesta/core';
import {
  parseIdType,
  resolveLayoutOption,
  authTokenOption,
  checkedLater,
  defineOptions,
  idServiceOptions,
  objectWith,
  timeSourceOption,
  typedAs,
  wholeNumber,
} from '@vesta/core/kit';
import { z } from 'zod';
import type { EmbeddedIdServiceOptions } from '@vesta/embedded';
import type { Registry } from 'prom-client';
import { parseServerAddress } from '../protocol/parseServerAddress.js';

/**
 * Local issuing (genMethod 0) while no server answers: a coordinator's `machineIdProvider` for a
 * fleet, or a fixed `machineId` only when each host has its own (hosts sharing one issue the same ids).
 */
export type IdClientFallbackOptions = Omit<
  EmbeddedIdServiceOptions,
  'type' | 'epoch' | 'layout' | 'version' | 'logger'
>;

const RATIO = { error: 'must be a number above 0 and at most 1' };

const prefetchShape = z.strictObject(
  {
    /** Buffered ids older than this are dropped; batches are sized to last about a quarter of it. @default 1000 */
    maxAgeMs: wholeNumber(1, 3_600_000).default(1000),
    /** The largest batch one refill asks for; the servers' `maxBatch` bounds it too. @default 10000 */
    maxBatch: wholeNumber(1, 10_000_000).default(10_000),
    /** A refill starts when fewer than this share of the batch size remain buffered. @default 0.5 */
    lowWaterRatio: z.number(RATIO).gt(0, RATIO).max(1, RATIO).default(0.5),
  },
  { error: () => 'must be true, false or an object (maxAgeMs, maxBatch, lowWaterRatio)' },
);

/** The prefetch buffer's options. */
export type IdClientPrefetchOptions = Readonly<z.input<typeof prefetchShape>>;

/** The `prefetch` option after validation, frozen. */
export type ResolvedIdClientPrefetchOptions = Readonly<z.output<typeof prefetchShape>>;

/** The declaration of {@link IdClientOptions}; the rules between options follow in the resolver. */
export const idClientOptions = defineOptions('id client', {
  /** The id servers, `host:port` each (at least one, no repeats). */
  servers: typedAs<readonly string[]>(
    z.array(z.string()).min(1),
    'must list at least one host:port',
  ),
  /** The token the servers require: 1 to 1024 visible ASCII characters. @default undefined */
  authToken: authTokenOption.optional(),
  /** The id type the servers must issue (needed to start while none answers). @default the first server's */
  type: idServiceOptions.schema.shape.type,
  /** The layout the servers must issue (core's `layout` option). @default the first server's */
  layout: checkedLater<LayoutOption>().optional(),
  /** The epoch the servers must use (core's `epoch` option). @default the first server's */
  epoch: idServiceOptions.schema.shape.epoch,
  /** Connections to each server; requests are spread over them. @default 1 */
  connectionsPerServer: wholeNumber(1, 64).default(1),
  /** Connect plus handshake must complete within this. @default 1000 */
  connectTimeoutMs: wholeNumber(1, 600_000).default(1000),
  /** A request not answered within this is retried on another server. @default 1000 */
  requestTimeoutMs: wholeNumber(1, 600_000).default(1000),
  /** Tries of one call, each on a server not yet tried for it. @default 3 */
  maxAttempts: wholeNumber(1, 100).default(3),
  /** First wait before a down server is probed again; doubles up to `maxProbeIntervalMs`. @default 100 */
  probeIntervalMs: wholeNumber(1, 600_000).default(100),
  /** Longest wait between probes of a down server. @default max(5000, probeIntervalMs) */
  maxProbeIntervalMs: wholeNumber(1, 3_600_000).optional(),
  /** A connection idle this long is pinged (keeps it open, finds dead servers). @default 15000 */
  keepAliveMs: wholeNumber(10, 3_600_000).default(15_000),
  /** Issue ids locally while no server answers ({@link IdClientFallbackOptions}). @default undefined (NO_SERVER_AVAILABLE) */
  fallback: z
    .custom<IdClientFallbackOptions>(
      (v) =>
        typeof v === 'object' &&
        v !== null &&
        ((v as IdClientFallbackOptions).machineId === undefined) !==
          ((v as IdClientFallbackOptions).machineIdProvider === undefined),
      { error: 'must be an object with one of machineId and machineIdProvider' },
    )
    .optional(),
  /**
   * Fetch ids in batches ahead of use (`true` for the defaults). Off by default: served ids are up
   * to `maxAgeMs` old, and ids buffered at `close()` or past `maxAgeMs` are spent unused. @default false
   */
  prefetch: (
    z.preprocess(
      (v) => (v === true ? {} : v === false ? undefined : v),
      prefetchShape.optional(),
    ) as z.ZodType<ResolvedIdClientPrefetchOptions | undefined, boolean | IdClientPrefetchOptions>
  ).optional(),
  /** Registry for the client's counters (fallback ids, retries, servers down). @default none */
  registry: objectWith<Registry>('a prom-client Registry', 'registerMetric').optional(),
  /** Where time and timers come from (probe backoff, keep-alive); tests pass a manual one. @default systemTimeSource */
  time: timeSourceOption.default(systemTimeSource),
  /** Where warnings go (a pino logger fits). @default stderr for warnings and errors */
  logger: objectWith<Logger>('a Logger (info, warn, error)', 'info', 'warn', 'error').default(
    consoleLogger,
  ),
});

/** Options of {@link createIdClient}: see {@link idClientOptions} for each. */
export type IdClientOptions = Readonly<z.input<typeof idClientOptions.schema>>;

/** The options after validation, frozen (what {@link resolveIdClientOptions} returns). */
export type ResolvedIdClientOptions = ReturnType<typeof resolveIdClientOptions>;

function invalid(message: string, cause?: unknown): VestaError {
  return new VestaError('INVALID_OPTIONS', message, { cause });
}

/** Validates the client's options once; INVALID_OPTIONS names the first bad one. */
export function resolveIdClientOptions(options: IdClientOptions) {
  const { epoch: epochMs, ...o } = idClientOptions.resolve(options);
  const servers = o.servers.map((s) => parseServerAddress(s));
  const seen = new Set(servers.map((s) => `${s.host.toLowerCase()}:${s.port}`));
  if (seen.size !== servers.length) throw invalid('servers must not list a server twice');
  let type: IdType | undefined;
  if (o.type !== undefined) {
    try {
      type = parseIdType(o.type);
    } catch (cause) {
      throw invalid(
        `type must be 'max-peak' (0) or 'min-granularity' (1), got ${String(o.type)}`,
        cause,
      );
    }
  }
  const layout = o.layout === undefined ? undefined : resolveLayoutOption(o.layout, type).layout;
  const maxProbeIntervalMs = o.maxProbeIntervalMs ?? Math.max(5000, o.probeIntervalMs);
  if (maxProbeIntervalMs < o.probeIntervalMs) {
    throw invalid(
      `maxProbeIntervalMs must be at least probeIntervalMs (${o.probeIntervalMs}), got ${maxProbeIntervalMs}`,
    );
  }
  return Object.freeze({
    ...o,
    servers: Object.freeze(servers),
    type: layout?.idType ?? type,
    layout,
    epochMs,
    maxProbeIntervalMs,
    fallback: o.fallback === undefined ? undefined : Object.freeze({ ...o.fallback }),
  });
}
