import {
  consoleLogger,
  systemClock,
  timeSourceWithClock,
  VestaError,
  type Clock,
  type Logger,
  type TimeSource,
} from '@vesta/core';

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

const KNOWN = new Set([
  'connect',
  'root',
  'key',
  'stateDir',
  'fallbackToCache',
  'sessionTimeoutMs',
  'connectTimeoutMs',
  'operationTimeoutMs',
  'refreshIntervalMs',
  'fenceAfterMs',
  'reclaimAfterMs',
  'maxClockSkewMs',
  'maxClockWaitMs',
  'ownerWaitMs',
  'eraWaitMs',
  'clock',
  'time',
  'logger',
]);

const HOST_PORT = /^[A-Za-z0-9._\-[\]:]+:[0-9]{1,5}$/;

function invalid(message: string): VestaError {
  return new VestaError('INVALID_OPTIONS', message);
}

function ms(name: string, value: unknown, fallback: number, min: number, max = 86_400_000): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(
      `${name} must be a whole number of ms from ${min} to ${max}, got ${String(value)}`,
    );
  }
  return value;
}

/** Checks a ZooKeeper connect string (`host:port[,host:port][/chroot]` without the chroot). */
export function checkConnectString(connect: unknown, name = 'connect'): string {
  if (
    typeof connect !== 'string' ||
    connect.split(',').some((part) => !HOST_PORT.test(part.trim()))
  ) {
    throw invalid(`${name} must be host:port[,host:port], got ${JSON.stringify(connect)}`);
  }
  return connect
    .split(',')
    .map((part) => part.trim())
    .join(',');
}

/** Checks a root path: absolute, no trailing slash, no empty or dot segments. */
export function checkRoot(root: unknown, name = 'root'): string {
  if (
    typeof root !== 'string' ||
    !/^(\/[A-Za-z0-9._-]+)+$/.test(root) ||
    root.split('/').some((s) => s === '.' || s === '..')
  ) {
    throw invalid(
      `${name} must be an absolute ZooKeeper path like /vesta or /fleets/a, got ${JSON.stringify(root)}`,
    );
  }
  return root;
}

/** Validates the options once, fills defaults, freezes them. Throws INVALID_OPTIONS. */
export function resolveZooKeeperMachineIdOptions(
  options: ZooKeeperMachineIdOptions,
): ResolvedZooKeeperMachineIdOptions {
  if (typeof options !== 'object' || options === null) throw invalid('options must be an object');
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw invalid(`unknown option ${JSON.stringify(key)}`);
  }
  const connect = checkConnectString(options.connect);
  const root = checkRoot(options.root ?? '/vesta');
  if (
    options.key !== undefined &&
    (typeof options.key !== 'string' || options.key === '' || options.key.length > 200)
  ) {
    throw invalid('key must be a non-empty string of at most 200 characters');
  }
  if (
    options.stateDir !== undefined &&
    (typeof options.stateDir !== 'string' || options.stateDir === '')
  ) {
    throw invalid('stateDir must be a non-empty path');
  }
  if (options.fallbackToCache !== undefined && typeof options.fallbackToCache !== 'boolean') {
    throw invalid('fallbackToCache must be a boolean');
  }
  if (options.clock !== undefined && typeof options.clock !== 'function')
    throw invalid('clock must be a function');
  if (
    options.time !== undefined &&
    (typeof options.time !== 'object' ||
      options.time === null ||
      typeof options.time.now !== 'function' ||
      typeof options.time.monotonic !== 'function' ||
      typeof options.time.setTimer !== 'function')
  ) {
    throw invalid('time must be a TimeSource (now, monotonic, setTimer)');
  }
  if (options.time !== undefined && options.clock !== undefined)
    throw invalid('give clock or time, not both');
  const time = options.time ?? timeSourceWithClock(options.clock ?? systemClock);
  const sessionTimeoutMs = ms('sessionTimeoutMs', options.sessionTimeoutMs, 10_000, 100, 600_000);
  const refreshIntervalMs = ms('refreshIntervalMs', options.refreshIntervalMs, 2_000, 10);
  const fenceAfterMs = ms('fenceAfterMs', options.fenceAfterMs, 8_000, 20);
  const reclaimAfterMs = ms(
    'reclaimAfterMs',
    options.reclaimAfterMs,
    120_000,
    100,
    365 * 86_400_000,
  );
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
  const maxClockSkewMs = ms('maxClockSkewMs', options.maxClockSkewMs, 1_000, 0);
  return Object.freeze({
    connect,
    root,
    key: options.key,
    stateDir: options.stateDir,
    fallbackToCache: options.fallbackToCache ?? true,
    sessionTimeoutMs,
    connectTimeoutMs: ms('connectTimeoutMs', options.connectTimeoutMs, 5_000, 10),
    operationTimeoutMs: ms('operationTimeoutMs', options.operationTimeoutMs, 5_000, 10),
    refreshIntervalMs,
    fenceAfterMs,
    reclaimAfterMs,
    maxClockSkewMs,
    maxClockWaitMs: ms('maxClockWaitMs', options.maxClockWaitMs, 10_000, 0),
    ownerWaitMs: ms('ownerWaitMs', options.ownerWaitMs, sessionTimeoutMs + 2_000, 0),
    eraWaitMs: ms(
      'eraWaitMs',
      options.eraWaitMs,
      Math.max(fenceAfterMs, sessionTimeoutMs) + 2 * maxClockSkewMs + 1_000,
      0,
    ),
    clock: time.now,
    time,
    logger: options.logger ?? consoleLogger,
  });
}
