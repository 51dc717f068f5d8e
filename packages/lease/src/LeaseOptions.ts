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

const ms = (min: number, max = 86_400_000): z.ZodNumber => wholeNumber(min, max);

const KEY_ERROR = { error: 'must be a non-empty string of at most 200 characters' };

/** The options every coordinator's provider shares ({@link defineLeaseOptions}). */
export const leaseOptionsShape = {
  /**
   * This instance's stable identity: the same key gets its old machine id back after a restart.
   * @default the key kept in `stateDir`, else a random key per start
   */
  key: z.string(KEY_ERROR).min(1, KEY_ERROR).max(200, KEY_ERROR).optional(),
  /** Where the key and the last confirmed lease are kept. @default none (no cache, no fallback) */
  stateDir: nonEmptyString.optional(),
  /** Start on the lease cached in `stateDir` when the coordinator cannot be reached. @default true */
  fallbackToCache: z.boolean({ error: 'must be a boolean' }).default(true),
  /** How long start-up waits for a first connection. @default 5000 */
  connectTimeoutMs: ms(10).default(5_000),
  /** Deadline of each request to the coordinator. @default 5000 */
  operationTimeoutMs: ms(10).default(5_000),
  /** How often the lease is renewed (its time mark raised). @default 2000 */
  refreshIntervalMs: ms(10).default(2_000),
  /** Issuing stops when not confirmed for this long; ≥ 2 × refreshIntervalMs. @default 8000 */
  fenceAfterMs: ms(20).default(8_000),
  /**
   * A dead owner's id idle this long may be taken when none is free; ≥ 2 × fenceAfterMs.
   * @default 120000
   */
  reclaimAfterMs: ms(100, 365 * 86_400_000).default(120_000),
  /** The clock difference allowed (or assumed) between this host and the coordinator. @default 1000 */
  maxClockSkewMs: ms(0).default(1_000),
  /** At start, the longest wait for the clock to pass the id's mark. @default 10000 */
  maxClockWaitMs: ms(0).default(10_000),
  /** How long a start waits for the key's previous holder to go. @default fenceAfterMs + 1000 */
  ownerWaitMs: ms(0).optional(),
  /**
   * How long a store without an open era (new, or lost its data) hands out nothing.
   * @default fenceAfterMs + 2 × maxClockSkewMs + 1000
   */
  eraWaitMs: ms(0).optional(),
  /** How many entries the lease journal keeps (what `vesta audit` can judge). @default 10000 */
  journalRetention: wholeNumber(1, 1_000_000).default(10_000),
  /** The wall clock (Unix ms). Give `clock` or `time`, not both. @default Date.now */
  clock: functionOption<Clock>('a function returning Unix ms').optional(),
  /** Time and timers (tests pass a manual one). Give `clock` or `time`, not both. */
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

/** Named, so that declaration files keep its TSDoc. */
export type LeaseShape = typeof leaseOptionsShape;

/** The shared lease options as callers give them. */
export type LeaseOptions = Readonly<z.input<z.ZodObject<LeaseShape>>>;

type SharedOutput = z.output<z.ZodObject<LeaseShape>>;

/** What a provider's declaration resolves to; `fallbackToCache` may be left out. */
export type LeaseShapeOutput = Readonly<
  Omit<SharedOutput, 'fallbackToCache'> & Partial<Pick<SharedOutput, 'fallbackToCache'>>
>;

/** The options `K` of `T`, set (each keeping its TSDoc). */
export type SetOptions<T, K extends keyof T> = { readonly [P in K]-?: Exclude<T[P], undefined> };

type FilledByRules = 'ownerWaitMs' | 'eraWaitMs' | 'clock' | 'time';

export type ResolvedLease<O extends LeaseShapeOutput> = Readonly<
  Omit<O, FilledByRules | 'fallbackToCache'> &
    SetOptions<O, FilledByRules> &
    SetOptions<LeaseShapeOutput, 'fallbackToCache'>
>;

export type ResolvedLeaseOptions = ResolvedLease<LeaseShapeOutput>;

/** A provider's changes to the shared rules: more floors of `reclaimAfterMs`, other defaults. */
export interface LeaseOptionRules {
  readonly reclaimAtLeast?: Readonly<Record<string, number>>;
  readonly ownerWaitMs?: number;
  /** How long a holder cut off may keep issuing. @default fenceAfterMs */
  readonly holderOutlivesMs?: number;
}

const invalid = (message: string): VestaError => new VestaError('INVALID_OPTIONS', message);

/** The rules between the shared options and their derived defaults; INVALID_OPTIONS. */
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

export type LeaseProviderShape<
  Own extends z.ZodRawShape,
  Without extends keyof LeaseShape = never,
> = Own & Omit<LeaseShape, keyof Own | Without>;

/**
 * A coordinator's options: its own, then the shared ones it neither restates nor leaves out.
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
  return defineOptions(store, shape) as unknown as OptionsDefinition<
    z.ZodObject<LeaseProviderShape<Own, Without>, z.core.$strict>
  >;
}

const adminOptionsShape = {
  /** Deadline of the connection and of each request, 1 to 600000. @default 5000 */
  timeoutMs: wholeNumber(1, 600_000).default(5_000),
};

export type AdminOptionsOf<D extends OptionsDefinition<z.ZodType>> = Readonly<z.input<D['schema']>>;

/**
 * An admin's options: the options `keys` of its provider's schema, and `timeoutMs`.
 * @example
 * const fooAdminOptions = defineAdminOptions('Foo', fooMachineIdOptions.schema, ['url', 'root']);
 */
export function defineAdminOptions<S extends z.ZodRawShape, K extends keyof S & string>(
  store: string,
  provider: z.ZodObject<S>,
  keys: readonly K[],
): OptionsDefinition<z.ZodObject<Pick<S, K> & typeof adminOptionsShape, z.core.$strict>> {
  const connection = Object.fromEntries(keys.map((k) => [k, provider.shape[k]])) as Pick<S, K>;
  return defineOptions(`${store} admin`, { ...connection, ...adminOptionsShape });
}

/** A fleet's root in a coordinator's tree (`what` names it in the error). */
export function coordinatorPathOption(what: string): z.ZodString {
  const error = `must be ${what} like /vesta or /fleets/a`;
  // Segments of letters, digits and . _ -, none of them . or ..
  return z.string({ error }).regex(/^(\/(?!\.\.?(\/|$))[A-Za-z0-9._-]+)+$/, { error });
}

/** A coordinator URL as its package reads it: where it points, and its query. */
export interface ReadUrl<T> {
  readonly target: T;
  readonly params: URLSearchParams;
}

/** A URL its package reads into a target, or a host-list URL read into `hosts` and `root`. */
export type CoordinatorUrlForm<T, H extends string> =
  | { readonly read: (url: string) => ReadUrl<T> | undefined; readonly form: string }
  | { readonly scheme: string; readonly hosts: H };

/** What a coordinator's options need besides their schema. */
export interface CoordinatorOptionsSpec<O, K, T, H extends string> {
  readonly url: CoordinatorUrlForm<T, H>;
  /** Its admin's connection options. */
  readonly admin: readonly K[];
  /** The shared options its provider leaves out. */
  readonly without?: readonly string[];
  /** `set` fills options derived from others. */
  rules?(o: O): LeaseOptionRules & { readonly set?: Readonly<Record<string, unknown>> };
}

/** A coordinator's URL: one of `schemes` (`['redis', 'rediss']`) and a host; `form` is shown on a mistake. */
export function coordinatorUrlOption(schemes: readonly string[], form: string): z.ZodString {
  const error = `must be a URL like ${form}`;
  const valid = (value: string): boolean => {
    if (!URL.canParse(value)) return false;
    const url = new URL(value);
    return schemes.includes(url.protocol.slice(0, -1)) && url.hostname !== '';
  };
  return z.string({ error }).refine(valid, { error });
}

const WRAPPERS = new Set(['optional', 'default', 'prefault', 'nullable', 'readonly']);

const READERS: Readonly<Record<string, (text: string) => unknown>> = {
  string: (text) => text,
  number: (text) => (/^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text),
  boolean: (text) => (text === 'true' ? true : text === 'false' ? false : text),
};

function readerOf(option: z.core.$ZodType): ((text: string) => unknown) | undefined {
  let def = option._zod.def as z.core.$ZodTypeDef & { innerType?: z.core.$ZodType };
  while (WRAPPERS.has(def.type) && def.innerType !== undefined) {
    def = def.innerType._zod.def as typeof def;
  }
  return READERS[def.type];
}

function givenOnce(store: string, name: string, given: unknown, fromUrl: unknown): void {
  if (given === undefined || fromUrl === undefined || given === fromUrl) return;
  const [option, inUrl] = [JSON.stringify(given), JSON.stringify(fromUrl)];
  throw invalid(
    `${name} is given as an option (${option}) and in the ${store} URL (${inUrl}): give it once`,
  );
}

/**
 * A coordinator's provider and admin options, resolved one way for each coordinator: the URL's
 * query (`?minReplicas=1`, each parameter read as its option's type) merged in, validated, the
 * lease rules checked, frozen; `target` is where a read URL points. INVALID_OPTIONS.
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
  type HostsSet = SetOptions<O, H & keyof O>;
  const { schema } = definition;
  const admin = defineAdminOptions(store, schema, spec.admin);
  const { url } = spec;
  const hosts: string | undefined = 'hosts' in url ? url.hosts : undefined;
  const form =
    'read' in url ? url.form : `${url.scheme}://host:port[,host:port][/root][?option=value...]`;
  // A host-list URL's target: the options it sets.
  const read = (text: string): ReadUrl<unknown> | undefined => {
    if ('read' in url) return url.read(text);
    const hostList = new RegExp(`^${url.scheme}://([^/?#@]+)(/[^?#]*)?(?:\\?([^#]*))?$`, 'i');
    const [, found, path, query = ''] = hostList.exec(text) ?? [];
    if (found === undefined) return undefined;
    const root = path === undefined || path === '/' ? {} : { root: path };
    return { target: { [url.hosts]: found, ...root }, params: new URLSearchParams(query) };
  };
  // Functions and objects cannot be set, nor what the URL itself names.
  const except = ['url', ...(hosts === undefined ? [] : [hosts, 'root'])];
  const settable = new Map<string, (text: string) => unknown>();
  for (const [name, option] of Object.entries(schema.shape)) {
    const reader = readerOf(option);
    if (reader !== undefined && !except.includes(name)) settable.set(name, reader);
  }
  const known = [...settable.keys()].join(', ');
  const withUrl = (options: object, keys?: readonly string[]) => {
    const given = options as Record<string, unknown>;
    const text = given['url'];
    const hostsGiven = hosts !== undefined && given[hosts] !== undefined;
    if (hosts !== undefined && text === undefined && !hostsGiven) {
      throw invalid(`${hosts} or url is required`);
    }
    const found = typeof text === 'string' ? read(text) : undefined;
    if (found === undefined && hosts !== undefined && text !== undefined) {
      throw invalid(`url must be ${form}`);
    }
    if (found === undefined) return { merged: given, target: undefined };
    if (hostsGiven) throw invalid(`give ${hosts} or url, not both`);
    const query: Record<string, unknown> = {};
    for (const name of new Set(found.params.keys())) {
      const reader = settable.get(name);
      if (reader === undefined)
        throw invalid(`unknown ${store} URL parameter ${name} (known: ${known})`);
      const texts = found.params.getAll(name);
      if (texts.length > 1) throw invalid(`${store} URL parameter ${name} is given twice`);
      const value = reader(texts[0] ?? '');
      givenOnce(store, name, given[name], value);
      // The admin's query may set only its connection options.
      if (keys === undefined || keys.includes(name)) query[name] = value;
    }
    if (hosts === undefined) return { merged: { ...given, ...query }, target: found.target as T };
    const set = found.target as Record<string, unknown>;
    givenOnce(store, 'root', given['root'], set['root']);
    const rest = Object.fromEntries(Object.entries(given).filter(([k]) => k !== 'url'));
    return { merged: { ...rest, ...query, ...set }, target: undefined };
  };
  const withTarget = <R extends object>(resolved: R, target: T | undefined) => {
    if ('read' in url && target === undefined) throw invalid(`url must be ${form}`);
    return Object.freeze({ ...resolved, ...('read' in url ? { target } : {}) }) as R & {
      readonly target: T;
    };
  };
  const without: readonly string[] = spec.without ?? [];
  return {
    schema,
    resolve(options: Readonly<z.input<z.ZodObject<S>>>) {
      const { merged, target } = withUrl(options);
      const o = definition.resolve(merged);
      const { set, ...rules } = spec.rules?.(o) ?? {};
      const all = resolveLeaseOptions({ ...o, ...set } as unknown as LeaseShapeOutput, rules);
      const resolved = Object.fromEntries(
        Object.entries(all).filter(([k]) => !without.includes(k)),
      );
      return withTarget(resolved as ResolvedLease<O & LeaseShapeOutput> & HostsSet, target);
    },
    resolveAdmin(options: AdminOptionsOf<typeof admin>) {
      const keys = spec.admin.filter((k) => k !== 'url' && k !== hosts);
      const { merged, target } = withUrl(options, keys);
      const o = admin.resolve(merged) as z.output<typeof admin.schema> & HostsSet;
      // An admin's one deadline bounds its connection and each request.
      const { timeoutMs: ms } = o as { timeoutMs: number };
      return withTarget({ ...o, connectTimeoutMs: ms, operationTimeoutMs: ms }, target);
    },
    admin,
  };
}
