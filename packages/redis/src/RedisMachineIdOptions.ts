import {
  consoleLogger,
  systemClock,
  timeSourceWithClock,
  VestaError,
  type Clock,
  type Logger,
  type TimeSource,
} from '@vesta/core';
import {
  checkOption,
  defineOptions,
  functionOption,
  nonEmptyString,
  objectWith,
  wholeNumber,
} from '@vesta/core/kit';
import { z } from 'zod';

/** Options of {@link RedisMachineIdProvider}. */
export interface RedisMachineIdOptions {
  /** The Redis server, `redis://[[user]:password@]host:port[/db]` (or `rediss://` for TLS). */
  readonly url: string;
  /**
   * The prefix of this fleet's keys (`{prefix}:id:3`...; the braces keep them in one slot);
   * several fleets can share one Redis under different prefixes.
   * @default 'vesta'
   */
  readonly prefix?: string;
  /**
   * This instance's stable identity: the same key gets its old machine id back after a restart.
   * @default the key kept in `stateDir` (created on first start), else a random key per start
   */
  readonly key?: string;
  /** Where the key (when none is given) and the last confirmed lease are kept. @default undefined */
  readonly stateDir?: string;
  /** How long start-up waits for a connection. @default 5000 */
  readonly connectTimeoutMs?: number;
  /** Deadline of each Redis request. @default 2000 */
  readonly operationTimeoutMs?: number;
  /** How often the lease is renewed (mark raised, expiry pushed back). @default 2000 */
  readonly refreshIntervalMs?: number;
  /**
   * Issuing stops when the lease was not confirmed for this long (monotonic clock); at least
   * twice `refreshIntervalMs`. The published mark runs this far ahead of the clock.
   * @default 8000
   */
  readonly fenceAfterMs?: number;
  /**
   * The expiry (PX) of the live key that marks the id held; renewals push it back. At least
   * `fenceAfterMs`: a holder that lost Redis has stopped by the time its key expires.
   * @default fenceAfterMs + 2000
   */
  readonly leaseTtlMs?: number;
  /**
   * An id without a live key whose mark was not raised for this long (Redis's clock) may be
   * taken over when no free id is left. At least twice `fenceAfterMs` and at least `leaseTtlMs`.
   * @default 120000
   */
  readonly reclaimAfterMs?: number;
  /** Largest allowed difference between this host's clock and Redis's, at start. @default 1000 */
  readonly maxClockSkewMs?: number;
  /** At start, wait at most this long for the clock to pass the id's stored mark. @default 10000 */
  readonly maxClockWaitMs?: number;
  /**
   * How long start-up waits for the live key of this key's previous start (a crash) to expire
   * before taking another id.
   * @default leaseTtlMs + 2000
   */
  readonly ownerWaitMs?: number;
  /**
   * How long a start waits (monotonic clock) after finding no allocation era (a new or flushed
   * Redis) before any id is handed out: every holder of the lost data has fenced itself by then.
   * 0 only for tests and a Redis never used.
   * @default fenceAfterMs + 2 × maxClockSkewMs + 1000
   */
  readonly eraWaitMs?: number;
  /**
   * Replicas that must acknowledge each claim and renewal (Redis `WAIT`) before it counts; 0
   * trusts the primary alone (a failover can then lose the latest claims: see the README).
   * @default 0
   */
  readonly minReplicas?: number;
  /** The wall clock (Unix ms). Give `clock` or `time`, not both. @default Date.now */
  readonly clock?: Clock;
  /**
   * Where the lease reads time and sets timers (marks, fencing bound, waits, renewals).
   * @default systemTimeSource, or one on `clock`
   */
  readonly time?: TimeSource;
  /** Where warnings go. @default stderr */
  readonly logger?: Logger;
}

/** {@link RedisMachineIdOptions} after validation. */
export interface ResolvedRedisMachineIdOptions {
  readonly url: string;
  readonly prefix: string;
  readonly key: string | undefined;
  readonly stateDir: string | undefined;
  readonly connectTimeoutMs: number;
  readonly operationTimeoutMs: number;
  readonly refreshIntervalMs: number;
  readonly fenceAfterMs: number;
  readonly leaseTtlMs: number;
  readonly reclaimAfterMs: number;
  readonly maxClockSkewMs: number;
  readonly maxClockWaitMs: number;
  readonly ownerWaitMs: number;
  readonly eraWaitMs: number;
  readonly minReplicas: number;
  readonly clock: Clock;
  readonly time: TimeSource;
  readonly logger: Logger;
}

/** A Redis URL: redis:// or rediss://, a host, a port. */
const urlOption = z.string({ error: 'must be a URL like redis://host:6379' }).refine(
  (value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '';
    } catch {
      return false;
    }
  },
  { error: 'must be a URL like redis://host:6379' },
);

const prefixOption = z
  .string({ error: 'must be letters, digits and . _ - : / (1 to 100)' })
  .regex(/^[A-Za-z0-9._\-:/]{1,100}$/, {
    error: 'must be letters, digits and . _ - : / (1 to 100)',
  });

const ms = (min: number, max = 86_400_000): z.ZodNumber => wholeNumber(min, max);

/** The declaration of {@link RedisMachineIdOptions}; the rules between options follow in the resolver. */
export const redisMachineIdOptions = defineOptions('Redis', {
  url: urlOption,
  prefix: prefixOption.default('vesta'),
  key: z
    .string({ error: 'must be a non-empty string of at most 200 characters' })
    .min(1, { error: 'must be a non-empty string of at most 200 characters' })
    .max(200, { error: 'must be a non-empty string of at most 200 characters' })
    .optional(),
  stateDir: nonEmptyString.optional(),
  connectTimeoutMs: ms(10).default(5_000),
  operationTimeoutMs: ms(10).default(2_000),
  refreshIntervalMs: ms(10).default(2_000),
  fenceAfterMs: ms(20).default(8_000),
  leaseTtlMs: ms(20).optional(),
  reclaimAfterMs: ms(100, 365 * 86_400_000).default(120_000),
  maxClockSkewMs: ms(0).default(1_000),
  maxClockWaitMs: ms(0).default(10_000),
  ownerWaitMs: ms(0).optional(),
  eraWaitMs: ms(0).optional(),
  minReplicas: wholeNumber(0, 100).default(0),
  clock: functionOption<Clock>('a function returning Unix ms').optional(),
  time: objectWith<TimeSource>(
    'a TimeSource (now, monotonic, setTimer)',
    'now',
    'monotonic',
    'setTimer',
  ).optional(),
  logger: objectWith<Logger>('a Logger (info, warn, error)', 'warn', 'error').default(
    consoleLogger,
  ),
});

/** Checks a Redis URL on its own (the admin's); INVALID_OPTIONS. */
export function checkRedisUrl(url: unknown, name = 'url'): string {
  return checkOption(urlOption, name, url);
}

/** Checks a key prefix on its own (the admin's); INVALID_OPTIONS. */
export function checkRedisPrefix(prefix: unknown, name = 'prefix'): string {
  return checkOption(prefixOption, name, prefix);
}

function invalid(message: string): VestaError {
  return new VestaError('INVALID_OPTIONS', message);
}

/** Validates the options once, fills defaults, freezes them. Throws INVALID_OPTIONS. */
export function resolveRedisMachineIdOptions(
  options: RedisMachineIdOptions,
): ResolvedRedisMachineIdOptions {
  const o = redisMachineIdOptions.resolve(options);
  if (o.time !== undefined && o.clock !== undefined) throw invalid('give clock or time, not both');
  const time = o.time ?? timeSourceWithClock(o.clock ?? systemClock);
  const { refreshIntervalMs, fenceAfterMs, reclaimAfterMs, maxClockSkewMs } = o;
  const leaseTtlMs = o.leaseTtlMs ?? fenceAfterMs + 2_000;
  if (fenceAfterMs < 2 * refreshIntervalMs) {
    throw invalid(
      `fenceAfterMs (${fenceAfterMs}) must be at least twice refreshIntervalMs (${refreshIntervalMs})`,
    );
  }
  if (leaseTtlMs < fenceAfterMs) {
    throw invalid(`leaseTtlMs (${leaseTtlMs}) must be at least fenceAfterMs (${fenceAfterMs})`);
  }
  if (reclaimAfterMs < 2 * fenceAfterMs || reclaimAfterMs < leaseTtlMs) {
    throw invalid(
      `reclaimAfterMs (${reclaimAfterMs}) must be at least twice fenceAfterMs (${fenceAfterMs}) and at least leaseTtlMs (${leaseTtlMs})`,
    );
  }
  return Object.freeze({
    url: o.url,
    prefix: o.prefix,
    key: o.key,
    stateDir: o.stateDir,
    connectTimeoutMs: o.connectTimeoutMs,
    operationTimeoutMs: o.operationTimeoutMs,
    refreshIntervalMs,
    fenceAfterMs,
    leaseTtlMs,
    reclaimAfterMs,
    maxClockSkewMs,
    maxClockWaitMs: o.maxClockWaitMs,
    ownerWaitMs: o.ownerWaitMs ?? leaseTtlMs + 2_000,
    eraWaitMs: o.eraWaitMs ?? fenceAfterMs + 2 * maxClockSkewMs + 1_000,
    minReplicas: o.minReplicas,
    clock: time.now,
    time,
    logger: o.logger,
  });
}
