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

/** Options of {@link ZooKeeperMachineIdProvider}. */
export interface ZooKeeperMachineIdOptions {
  /** ZooKeeper servers, `host:port[,host:port]`. */
  readonly connect: string;
  /**
   * The path under which this fleet's allocations live; several fleets can share one ZooKeeper
   * under different roots.
   * @default '/vesta'
   */
  readonly root?: string;
  /**
   * This instance's stable identity: the same key gets its old machine id back after a
   * restart. Servers use `host:port`; embedded instances a name of yours.
   * @default the key kept in `stateDir` (created on first start), else a random key per start
   */
  readonly key?: string;
  /**
   * Where the key (when none is given) and the last confirmed lease (id and time mark) are
   * kept, for stable identity and for starting while ZooKeeper is down.
   * @default undefined (no cache, no fallback)
   */
  readonly stateDir?: string;
  /** Start on the lease cached in `stateDir` when ZooKeeper cannot be reached. @default true */
  readonly fallbackToCache?: boolean;
  /** ZooKeeper session timeout (the server may bound it). @default 10000 */
  readonly sessionTimeoutMs?: number;
  /** How long start-up waits for a first connection. @default 5000 */
  readonly connectTimeoutMs?: number;
  /** Deadline of each ZooKeeper request. @default 5000 */
  readonly operationTimeoutMs?: number;
  /** How often the time mark is raised in ZooKeeper (which confirms the lease). @default 2000 */
  readonly refreshIntervalMs?: number;
  /**
   * Issuing stops when the lease was not confirmed for this long (monotonic clock); it must be
   * at least twice `refreshIntervalMs`. The published mark runs this far ahead of the clock, so a
   * restart after a crash waits at most this long.
   * @default 8000
   */
  readonly fenceAfterMs?: number;
  /**
   * An id whose owner has no live node and has not raised its mark for this long may be taken
   * over when no free id is left. At least `sessionTimeoutMs` and twice `fenceAfterMs`.
   * @default 120000
   */
  readonly reclaimAfterMs?: number;
  /** Largest allowed difference between this host's clock and ZooKeeper's, at start. @default 1000 */
  readonly maxClockSkewMs?: number;
  /** At start, wait at most this long for the clock to pass the id's stored mark; else CLOCK_BEHIND_HIGH_WATER_MARK. @default 10000 */
  readonly maxClockWaitMs?: number;
  /**
   * How long start-up waits for the live node of this key's previous session (a crash) to go
   * before taking a fresh id instead.
   * @default sessionTimeoutMs + 2000
   */
  readonly ownerWaitMs?: number;
  /**
   * How long a start waits, on the monotonic clock, after finding no allocation era in
   * ZooKeeper (a new tree, or one that lost its data) before any machine id is handed out: long
   * enough for every instance still holding an id of a lost tree to have fenced itself and for
   * this host's clock to be past their last ids. Below the default that is no longer certain;
   * 0 suits only tests and a tree known never to have been used.
   * @default max(fenceAfterMs, sessionTimeoutMs) + 2 × maxClockSkewMs + 1000
   */
  readonly eraWaitMs?: number;
  /** The wall clock (Unix ms); inject one in tests. Give `clock` or `time`, not both. @default Date.now */
  readonly clock?: Clock;
  /**
   * Where the lease reads time and sets timers: the wall clock of its marks, the monotonic clock
   * of its fencing bound, reclaim delay, owner and era waits, and the timer of its renewals. Tests
   * pass a manual one and advance it instead of sleeping. Give `clock` or `time`, not both.
   * @default systemTimeSource (`Date.now`, `performance.now`, node's timers), or one on `clock`
   */
  readonly time?: TimeSource;
  /** Where warnings go. @default stderr */
  readonly logger?: Logger;
}

/** {@link ZooKeeperMachineIdOptions} after validation. */
export interface ResolvedZooKeeperMachineIdOptions {
  readonly connect: string;
  readonly root: string;
  readonly key: string | undefined;
  readonly stateDir: string | undefined;
  readonly fallbackToCache: boolean;
  readonly sessionTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly operationTimeoutMs: number;
  readonly refreshIntervalMs: number;
  readonly fenceAfterMs: number;
  readonly reclaimAfterMs: number;
  readonly maxClockSkewMs: number;
  readonly maxClockWaitMs: number;
  readonly ownerWaitMs: number;
  readonly eraWaitMs: number;
  /** The wall clock of `time`. */
  readonly clock: Clock;
  readonly time: TimeSource;
  readonly logger: Logger;
}

const HOST_PORT = /^[A-Za-z0-9._\-[\]:]+:[0-9]{1,5}$/;

/** A ZooKeeper connect string (`host:port[,host:port]`, without a chroot), white space trimmed. */
const connectOption = z
  .string({ error: 'must be host:port[,host:port]' })
  .refine((value) => value.split(',').every((part) => HOST_PORT.test(part.trim())), {
    error: 'must be host:port[,host:port]',
  })
  .transform((value) =>
    value
      .split(',')
      .map((part) => part.trim())
      .join(','),
  );

/** A root path: absolute, no trailing slash, no empty or dot segments. */
const rootOption = z
  .string({ error: 'must be an absolute ZooKeeper path like /vesta or /fleets/a' })
  .refine(
    (value) =>
      /^(\/[A-Za-z0-9._-]+)+$/.test(value) &&
      !value.split('/').some((segment) => segment === '.' || segment === '..'),
    { error: 'must be an absolute ZooKeeper path like /vesta or /fleets/a' },
  );

/** Milliseconds from `min` to `max` (a day unless given). */
const ms = (min: number, max = 86_400_000): z.ZodNumber => wholeNumber(min, max);

/** The declaration of {@link ZooKeeperMachineIdOptions}; the rules between options follow in the resolver. */
export const zooKeeperMachineIdOptions = defineOptions('ZooKeeper', {
  connect: connectOption,
  root: rootOption.default('/vesta'),
  key: z
    .string({ error: 'must be a non-empty string of at most 200 characters' })
    .min(1, { error: 'must be a non-empty string of at most 200 characters' })
    .max(200, { error: 'must be a non-empty string of at most 200 characters' })
    .optional(),
  stateDir: nonEmptyString.optional(),
  fallbackToCache: z.boolean({ error: 'must be a boolean' }).default(true),
  sessionTimeoutMs: ms(100, 600_000).default(10_000),
  connectTimeoutMs: ms(10).default(5_000),
  operationTimeoutMs: ms(10).default(5_000),
  refreshIntervalMs: ms(10).default(2_000),
  fenceAfterMs: ms(20).default(8_000),
  reclaimAfterMs: ms(100, 365 * 86_400_000).default(120_000),
  maxClockSkewMs: ms(0).default(1_000),
  maxClockWaitMs: ms(0).default(10_000),
  ownerWaitMs: ms(0).optional(),
  eraWaitMs: ms(0).optional(),
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

/** Checks a ZooKeeper connect string on its own (the admin's); INVALID_OPTIONS. */
export function checkConnectString(connect: unknown, name = 'connect'): string {
  return checkOption(connectOption, name, connect);
}

/** Checks a root path on its own (the admin's); INVALID_OPTIONS. */
export function checkRoot(root: unknown, name = 'root'): string {
  return checkOption(rootOption, name, root);
}

function invalid(message: string): VestaError {
  return new VestaError('INVALID_OPTIONS', message);
}

/** Validates the options once, fills defaults, freezes them. Throws INVALID_OPTIONS. */
export function resolveZooKeeperMachineIdOptions(
  options: ZooKeeperMachineIdOptions,
): ResolvedZooKeeperMachineIdOptions {
  const o = zooKeeperMachineIdOptions.resolve(options);
  if (o.time !== undefined && o.clock !== undefined) throw invalid('give clock or time, not both');
  const time = o.time ?? timeSourceWithClock(o.clock ?? systemClock);
  const { sessionTimeoutMs, refreshIntervalMs, fenceAfterMs, reclaimAfterMs, maxClockSkewMs } = o;
  if (fenceAfterMs < 2 * refreshIntervalMs) {
    throw invalid(
      `fenceAfterMs (${fenceAfterMs}) must be at least twice refreshIntervalMs (${refreshIntervalMs})`,
    );
  }
  if (reclaimAfterMs < 2 * fenceAfterMs || reclaimAfterMs < sessionTimeoutMs) {
    throw invalid(
      `reclaimAfterMs (${reclaimAfterMs}) must be at least twice fenceAfterMs (${fenceAfterMs}) and at least sessionTimeoutMs (${sessionTimeoutMs})`,
    );
  }
  return Object.freeze({
    connect: o.connect,
    root: o.root,
    key: o.key,
    stateDir: o.stateDir,
    fallbackToCache: o.fallbackToCache,
    sessionTimeoutMs,
    connectTimeoutMs: o.connectTimeoutMs,
    operationTimeoutMs: o.operationTimeoutMs,
    refreshIntervalMs,
    fenceAfterMs,
    reclaimAfterMs,
    maxClockSkewMs,
    maxClockWaitMs: o.maxClockWaitMs,
    ownerWaitMs: o.ownerWaitMs ?? sessionTimeoutMs + 2_000,
    eraWaitMs: o.eraWaitMs ?? Math.max(fenceAfterMs, sessionTimeoutMs) + 2 * maxClockSkewMs + 1_000,
    clock: time.now,
    time,
    logger: o.logger,
  });
}
