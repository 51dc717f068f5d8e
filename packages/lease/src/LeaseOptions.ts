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
  defineOptions,
  functionOption,
  nonEmptyString,
  objectWith,
  systemClock,
  wholeNumber,
  type OptionsDefinition,
} from '@vesta/core/kit';
import { withHostListUrl, withUrlOptions, type ReadUrl } from './optionsFromUrl.js';

/** Milliseconds from `min` to `max` (a day unless given). */
const ms = (min: number, max = 86_400_000): z.ZodNumber => wholeNumber(min, max);

const KEY_ERROR = { error: 'must be a non-empty string of at most 200 characters' };

/**
 * The options every coordinator's provider shares, declared once: a provider's declaration
 * ({@link defineLeaseOptions}) restates one only where its default or meaning differs.
 */
export const leaseOptionsShape = {
  /**
   * This instance's stable identity: the same key gets its old machine id back after a
   * restart. Servers use `host:port`; embedded instances a name of yours.
   * @default the key kept in `stateDir` (created on first start), else a random key per start
   */
  key: z.string(KEY_ERROR).min(1, KEY_ERROR).max(200, KEY_ERROR).optional(),
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
   * How long a start waits after finding no open allocation era (a new store, or one that lost
   * its data) before any id is handed out: every holder of lost data has fenced itself by then.
   * @default fenceAfterMs + 2 × maxClockSkewMs + 1000
   */
  eraWaitMs: ms(0).optional(),
  /**
   * How many entries the store's lease journal keeps (the newest): the window `vesta audit
   * --coordinator` can judge ids in. Each start appends one, each clean release one. At most
   * 1,000,000: the history is read back whole.
   * @default 10000
   */
  journalRetention: wholeNumber(1, 1_000_000).default(10_000),
  /** The wall clock (Unix ms). Give `clock` or `time`, not both. @default Date.now */
  clock: functionOption<Clock>('a function returning Unix ms').optional(),
  /**
   * Where the lease reads time and sets timers; tests pass a manual one. Give `clock` or `time`,
   * not both.
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

/** The shared lease options as callers give them. */
export type LeaseOptions = Readonly<z.input<z.ZodObject<LeaseShape>>>;

type SharedOutput = z.output<z.ZodObject<LeaseShape>>;

/** What a provider's declaration resolves to; `fallbackToCache` may be left out. */
export type LeaseShapeOutput = Readonly<
  Omit<SharedOutput, 'fallbackToCache'> & Partial<Pick<SharedOutput, 'fallbackToCache'>>
>;

/** The options `K` of `T`, set: no longer optional, each keeping its declaration (and TSDoc). */
export type SetOptions<T, K extends keyof T> = { readonly [P in K]-?: Exclude<T[P], undefined> };

/** `T` with the options `K` set (a provider's own derived default, e.g. Redis's `leaseTtlMs`). */
export type Filled<T, K extends keyof T> = Omit<T, K> & SetOptions<T, K>;

type FilledByRules = 'ownerWaitMs' | 'eraWaitMs' | 'clock' | 'time';

/** A provider's options after {@link resolveLeaseOptions}: every default filled, frozen. */
export type ResolvedLease<O extends LeaseShapeOutput> = Readonly<
  Omit<O, FilledByRules | 'fallbackToCache'> &
    SetOptions<O, FilledByRules> &
    SetOptions<LeaseShapeOutput, 'fallbackToCache'>
>;

export type ResolvedLeaseOptions = ResolvedLease<LeaseShapeOutput>;

/** What a provider's own options change in the shared rules. */
export interface LeaseOptionRules {
  /** Further lower bounds of `reclaimAfterMs`, by the name of the option that sets each. */
  readonly reclaimAtLeast?: Readonly<Record<string, number>>;
  /** @default fenceAfterMs + 1000 */
  readonly ownerWaitMs?: number;
  /** How long a holder cut off may keep issuing (`eraWaitMs` builds on it). @default fenceAfterMs */
  readonly holderOutlivesMs?: number;
}

function invalid(message: string): VestaError {
  return new VestaError('INVALID_OPTIONS', message);
}

/**
 * The rules between the shared options, checked once for every provider: `clock` or `time`, not
 * both; the fence at least twice the refresh interval; the reclaim delay at least twice the
 * fence (and each of `rules.reclaimAtLeast`); the derived defaults. Throws INVALID_OPTIONS.
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
  // TypeScript cannot check a number against a generic O's ownerWaitMs: hence the cast.
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

/** A coordinator's options shape: its own, then the shared ones it neither restates nor leaves out. */
export type LeaseProviderShape<
  Own extends z.ZodRawShape,
  Without extends keyof LeaseShape = never,
> = Own & Omit<LeaseShape, keyof Own | Without>;

/**
 * Declares a coordinator's options: its own first, then {@link leaseOptionsShape} in its order,
 * an own option restating a shared one taking its place, those of `without` left out.
 *
 * @example
 * const fooMachineIdOptions = defineLeaseOptions('Foo', {
 *   url: coordinatorUrlOption(['foo'], 'foo://host:1234'),
 *   fenceAfterMs: leaseOptionsShape.fenceAfterMs, // restated for its Foo-specific TSDoc
 * });
 */
export function defineLeaseOptions<
  Own extends z.ZodRawShape,
  Without extends keyof LeaseShape = never,
>(
  store: string,
  own: Own,
  without: readonly Without[] = [],
): OptionsDefinition<z.ZodObject<LeaseProviderShape<Own, Without>, z.core.$strict>> {
  const left: readonly string[] = without;
  const shape: Record<string, z.core.$ZodType> = {};
  for (const [name, option] of Object.entries(own)) {
    if (!(name in leaseOptionsShape)) shape[name] = option;
  }
  for (const [name, option] of Object.entries(leaseOptionsShape)) {
    if (!left.includes(name)) shape[name] = own[name] ?? option;
  }
  // Built key by key (to keep the order), so typed by what the loops build.
  return defineOptions(store, shape) as unknown as OptionsDefinition<
    z.ZodObject<LeaseProviderShape<Own, Without>, z.core.$strict>
  >;
}

const adminOptionsShape = {
  /** Deadline of the connection and of each request, 1 to 600000. @default 5000 */
  timeoutMs: wholeNumber(1, 600_000).default(5_000),
};

/** What every coordinator's admin options have besides the connection. */
export type CoordinatorAdminOptions = Readonly<z.input<z.ZodObject<typeof adminOptionsShape>>>;

/** The options an admin declared with {@link defineAdminOptions} takes. */
export type AdminOptionsOf<D extends OptionsDefinition<z.ZodType>> = Readonly<z.input<D['schema']>>;

/**
 * An admin's options: the options `keys` of its provider's schema (their declarations and
 * defaults with them) and `timeoutMs`.
 *
 * @example
 * const fooAdminOptions = defineAdminOptions('Foo', fooMachineIdOptions.schema, ['url', 'root']);
 */
export function defineAdminOptions<S extends z.ZodRawShape, K extends keyof S & string>(
  store: string,
  provider: z.ZodObject<S>,
  keys: readonly K[],
): OptionsDefinition<z.ZodObject<Pick<S, K> & typeof adminOptionsShape, z.core.$strict>> {
  const connection = {} as Pick<S, K>;
  for (const key of keys) connection[key] = provider.shape[key];
  return defineOptions(`${store} admin`, { ...connection, ...adminOptionsShape });
}

/**
 * A fleet's root in a coordinator's tree: absolute, no trailing slash, no empty or dot segments;
 * `what` names it in the error (`a key prefix`).
 */
export function coordinatorPathOption(what: string): z.ZodString {
  const error = `must be ${what} like /vesta or /fleets/a`;
  return z
    .string({ error })
    .refine(
      (value) =>
        /^(\/[A-Za-z0-9._-]+)+$/.test(value) &&
        !value.split('/').some((segment) => segment === '.' || segment === '..'),
      { error },
    );
}

/** `T`'s options `K` set (a host list `url` fills). */
type HostsSet<T, K> = { readonly [P in K & keyof T]-?: Exclude<T[P], undefined> };

/** How a coordinator's `url` option reads. */
export type CoordinatorUrlForm<T, H extends string> =
  /** A URL its package reads into a target ({@link withUrlOptions}); `form` names it in errors. */
  | { readonly read: (url: string) => ReadUrl<T> | undefined; readonly form: string }
  /** A host-list URL `scheme://...` read into the option `hosts` and `root` ({@link withHostListUrl}). */
  | { readonly scheme: string; readonly hosts: H };

/** What a coordinator's options need besides their schema. */
export interface CoordinatorOptionsSpec<O, K, T, H extends string> {
  readonly url: CoordinatorUrlForm<T, H>;
  /** Its admin's connection options (the URL's query may set those but `url` and the hosts). */
  readonly admin: readonly K[];
  /** The shared options its provider leaves out (see {@link defineLeaseOptions}). */
  readonly without?: readonly string[];
  /** Its own rules over the options given; `set` fills options derived from others. */
  rules?(o: O): LeaseOptionRules & { readonly set?: Readonly<Record<string, unknown>> };
}

/**
 * A coordinator's options resolved one way for each coordinator: the URL's query merged into
 * the options, validated against `definition`, the shared lease rules and the coordinator's own
 * checked, frozen; `target` is where a read URL points. The admin's options the same way, from
 * the provider's declarations of its `spec.admin` options and `timeoutMs`. Throws INVALID_OPTIONS.
 */
export function defineCoordinatorOptions<
  S extends z.ZodRawShape,
  K extends keyof S & string,
  T = never,
  H extends keyof S & string = never,
>(
  store: string,
  definition: OptionsDefinition<z.ZodObject<S, z.core.$strict>>,
  spec: CoordinatorOptionsSpec<Readonly<z.output<z.ZodObject<S>>>, K, T, H>,
) {
  type O = z.output<z.ZodObject<S>>;
  const { schema } = definition;
  const admin = defineAdminOptions(store, schema, spec.admin);
  const { url } = spec;
  const withUrl = <G extends object>(options: G, keys?: readonly string[]) => {
    const given = options as G & { url: string };
    const { target, ...merged } =
      'read' in url
        ? withUrlOptions(store, schema, url.read, given, keys)
        : {
            ...withHostListUrl(store, url.scheme, url.hosts, schema, given, keys),
            target: undefined,
          };
    return { merged, target };
  };
  const withTarget = <R extends object>(resolved: R, target: T | undefined) => {
    if ('read' in url && target === undefined) {
      throw new VestaError('INVALID_OPTIONS', `url must be ${url.form}`);
    }
    return Object.freeze({ ...resolved, ...('read' in url ? { target } : {}) }) as R & {
      readonly target: T;
    };
  };
  return {
    schema,
    /** The provider's options. */
    resolve(options: Readonly<z.input<z.ZodObject<S>>>) {
      const { merged, target } = withUrl(options);
      const o = definition.resolve(merged);
      const { set, ...rules } = spec.rules?.(o) ?? {};
      const all = resolveLeaseOptions({ ...o, ...set } as unknown as LeaseShapeOutput, rules);
      const without: readonly string[] = spec.without ?? [];
      const resolved = Object.fromEntries(
        Object.entries(all).filter(([k]) => !without.includes(k)),
      );
      return withTarget(resolved as ResolvedLease<O & LeaseShapeOutput> & HostsSet<O, H>, target);
    },
    /** The admin's options; the URL's query may set only its connection options. */
    resolveAdmin(options: AdminOptionsOf<typeof admin>) {
      const hosts: readonly string[] = 'read' in url ? [] : [url.hosts];
      const query = spec.admin.filter((k) => k !== 'url' && !hosts.includes(k));
      const { merged, target } = withUrl(options, query);
      const o = admin.resolve(merged) as z.output<typeof admin.schema> & HostsSet<O, H>;
      return withTarget(o, target);
    },
    admin,
  };
}
