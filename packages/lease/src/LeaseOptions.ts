import { z } from 'zod';
import {
  consoleLogger,
  timeSourceWithClock,
  VestaError,
  type Clock,
  type Logger,
  type TimeSource,
} from '@vesta/core';
import {
  functionOption,
  nonEmptyString,
  objectWith,
  systemClock,
  wholeNumber,
} from '@vesta/core/kit';

/** Milliseconds from `min` to `max` (a day unless given). */
const ms = (min: number, max = 86_400_000): z.ZodNumber => wholeNumber(min, max);

/**
 * The one declaration of the options every coordinator's machine-id provider shares (ZooKeeper,
 * Redis, PostgreSQL, etcd): each option's type, range, default and documentation. A provider
 * spreads it into its own `defineOptions` declaration, restating an option only where its
 * default or meaning on that store differs (with its own TSDoc), and resolves the rules between
 * the options with {@link resolveLeaseOptions}. {@link LeaseOptions} is derived from it.
 */
export const leaseOptionsShape = {
  /**
   * This instance's stable identity: the same key gets its old machine id back after a
   * restart. Servers use `host:port`; embedded instances a name of yours.
   * @default the key kept in `stateDir` (created on first start), else a random key per start
   */
  key: z
    .string({ error: 'must be a non-empty string of at most 200 characters' })
    .min(1, { error: 'must be a non-empty string of at most 200 characters' })
    .max(200, { error: 'must be a non-empty string of at most 200 characters' })
    .optional(),
  /**
   * Where the key (when none is given) and the last confirmed lease (id and time mark) are
   * kept, for stable identity and for starting while the coordinator is down.
   * @default undefined (no cache, no fallback)
   */
  stateDir: nonEmptyString.optional(),
  /** Start on the lease cached in `stateDir` when the coordinator cannot be reached. @default true */
  fallbackToCache: z.boolean({ error: 'must be a boolean' }).default(true),
  /** How long start-up waits for a first connection. @default 5000 */
  connectTimeoutMs: ms(10).default(5_000),
  /** Deadline of each request to the coordinator. @default 5000 */
  operationTimeoutMs: ms(10).default(5_000),
  /** How often the lease is renewed (its time mark raised). @default 2000 */
  refreshIntervalMs: ms(10).default(2_000),
  /**
   * Issuing stops when the lease was not confirmed for this long (monotonic clock); at least
   * twice `refreshIntervalMs`.
   * @default 8000
   */
  fenceAfterMs: ms(20).default(8_000),
  /**
   * An id whose owner is gone and has not raised its mark for this long may be taken over when
   * no free id is left. At least twice `fenceAfterMs`.
   * @default 120000
   */
  reclaimAfterMs: ms(100, 365 * 86_400_000).default(120_000),
  /** The clock difference allowed (or assumed) between this host and the coordinator. @default 1000 */
  maxClockSkewMs: ms(0).default(1_000),
  /**
   * At start, wait at most this long for the clock to pass the id's stored mark; else
   * CLOCK_BEHIND_HIGH_WATER_MARK.
   * @default 10000
   */
  maxClockWaitMs: ms(0).default(10_000),
  /**
   * How long a start waits for the lease of this key's previous holder (a crash) to go before
   * taking another id.
   * @default fenceAfterMs + 1000
   */
  ownerWaitMs: ms(0).optional(),
  /**
   * How long a start waits (monotonic clock) after finding no open allocation era (a new store,
   * or one that lost its data) before any id is handed out: every holder of the lost data has
   * fenced itself by then. 0 only for tests and a store never used.
   * @default fenceAfterMs + 2 × maxClockSkewMs + 1000
   */
  eraWaitMs: ms(0).optional(),
  /**
   * How many entries the store's lease journal keeps (the newest; older ones are trimmed as
   * entries are appended): the window `vesta audit --coordinator` can judge ids in. Each start
   * appends one entry and each clean release one. At most 1,000,000: the history is read back
   * whole (a Redis LRANGE, a ZooKeeper child list), which a larger journal would not survive.
   * @default 10000
   */
  journalRetention: wholeNumber(1, 1_000_000).default(10_000),
  /** The wall clock (Unix ms). Give `clock` or `time`, not both. @default Date.now */
  clock: functionOption<Clock>('a function returning Unix ms').optional(),
  /**
   * Where the lease reads time and sets timers (marks, fencing bound, waits, renewals); tests
   * pass a manual one and advance it instead of sleeping. Give `clock` or `time`, not both.
   * @default systemTimeSource, or one on `clock`
   */
  time: objectWith<TimeSource>(
    'a TimeSource (now, monotonic, setTimer)',
    'now',
    'monotonic',
    'setTimer',
  ).optional(),
  /** Where warnings go. @default stderr */
  logger: objectWith<Logger>('a Logger (info, warn, error)', 'warn', 'error').default(
    consoleLogger,
  ),
} as const;

/** The type of {@link leaseOptionsShape}, by name (so that declaration files keep its TSDoc). */
export type LeaseShape = typeof leaseOptionsShape;

/** The shared lease options as callers give them: see {@link leaseOptionsShape} for each. */
export type LeaseOptions = Readonly<z.input<z.ZodObject<LeaseShape>>>;

/**
 * What a provider's declaration resolves to before the rules between options: its own options
 * and the shared ones; `fallbackToCache` may be left out (a store that never starts on a cached
 * lease).
 */
export type LeaseShapeOutput = Readonly<
  Omit<SharedOutput, 'fallbackToCache'> & Partial<Pick<SharedOutput, 'fallbackToCache'>>
>;

/** What `leaseOptionsShape` alone resolves to. */
type SharedOutput = z.output<z.ZodObject<LeaseShape>>;

/** The options `K` of `T`, set: no longer optional, each keeping its declaration (and TSDoc). */
export type SetOptions<T, K extends keyof T> = { readonly [P in K]-?: Exclude<T[P], undefined> };

/** `T` with the options `K` set (a provider's own derived default, e.g. Redis's `leaseTtlMs`). */
export type Filled<T, K extends keyof T> = Omit<T, K> & SetOptions<T, K>;

/** The options {@link resolveLeaseOptions} fills from the others. */
type FilledByRules = 'ownerWaitMs' | 'eraWaitMs' | 'clock' | 'time';

/**
 * A provider's options after validation (`O`: what its declaration resolves to): every default
 * filled, `clock` the wall clock of `time`, `fallbackToCache` false where the store declares
 * none; frozen. Each option keeps the TSDoc of the provider's declaration.
 */
export type ResolvedLease<O extends LeaseShapeOutput> = Readonly<
  Omit<O, FilledByRules | 'fallbackToCache'> &
    SetOptions<O, FilledByRules> &
    SetOptions<LeaseShapeOutput, 'fallbackToCache'>
>;

/** The shared lease options after validation. */
export type ResolvedLeaseOptions = ResolvedLease<LeaseShapeOutput>;

/**
 * What a provider's own options change in the shared rules: the defaults that depend on how
 * long its store keeps a lost holder's claim, and further lower bounds of the reclaim delay.
 */
export interface LeaseOptionRules {
  /**
   * Further lower bounds of `reclaimAfterMs`, by the name of the option that sets each (a
   * session or live key must have expired before its id is reclaimed).
   * @default {}
   */
  readonly reclaimAtLeast?: Readonly<Record<string, number>>;
  /** `ownerWaitMs` when none is given. @default fenceAfterMs + 1000 */
  readonly ownerWaitMs?: number;
  /**
   * How long a holder cut off from the store may keep issuing; `eraWaitMs` defaults to this +
   * 2 × maxClockSkewMs + 1000.
   * @default fenceAfterMs
   */
  readonly holderOutlivesMs?: number;
}

function invalid(message: string): VestaError {
  return new VestaError('INVALID_OPTIONS', message);
}

/**
 * The rules between the shared lease options, checked once for every provider: `clock` or
 * `time`, not both; the fence at least twice the refresh interval; the reclaim delay at least
 * twice the fence (and at least each of `rules.reclaimAtLeast`); and the defaults that depend on
 * other options. Takes what a provider's declaration resolved (its own options pass through) and
 * returns it frozen. Throws INVALID_OPTIONS.
 */
export function resolveLeaseOptions<O extends LeaseShapeOutput>(
  o: O,
  rules: LeaseOptionRules = {},
): ResolvedLease<O> {
  if (o.time !== undefined && o.clock !== undefined) throw invalid('give clock or time, not both');
  const time = o.time ?? timeSourceWithClock(o.clock ?? systemClock);
  const { refreshIntervalMs, fenceAfterMs, reclaimAfterMs, maxClockSkewMs } = o;
  if (fenceAfterMs < 2 * refreshIntervalMs) {
    throw invalid(
      `fenceAfterMs (${fenceAfterMs}) must be at least twice refreshIntervalMs (${refreshIntervalMs})`,
    );
  }
  const floors = Object.entries(rules.reclaimAtLeast ?? {});
  if (reclaimAfterMs < 2 * fenceAfterMs || floors.some(([, floor]) => reclaimAfterMs < floor)) {
    const more = floors.map(([name, floor]) => ` and at least ${name} (${floor})`).join('');
    throw invalid(
      `reclaimAfterMs (${reclaimAfterMs}) must be at least twice fenceAfterMs (${fenceAfterMs})${more}`,
    );
  }
  const holderOutlivesMs = rules.holderOutlivesMs ?? fenceAfterMs;
  // The spread keeps the provider's own options; TypeScript cannot check a number against a
  // generic O's ownerWaitMs, hence the cast to what the declaration says.
  const resolved: ResolvedLease<LeaseShapeOutput> = {
    ...o,
    ownerWaitMs: o.ownerWaitMs ?? rules.ownerWaitMs ?? fenceAfterMs + 1_000,
    eraWaitMs: o.eraWaitMs ?? holderOutlivesMs + 2 * maxClockSkewMs + 1_000,
    clock: time.now,
    time,
    fallbackToCache: o.fallbackToCache ?? false,
  };
  return Object.freeze(resolved) as ResolvedLease<O>;
}
