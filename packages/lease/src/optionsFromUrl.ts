import { VestaError } from '@vesta/core';
import { z } from 'zod';

/** A coordinator's URL: one of `schemes` (`['redis', 'rediss']`) and a host; `form` is shown on a mistake. */
export function coordinatorUrlOption(schemes: readonly string[], form: string): z.ZodString {
  const error = `must be a URL like ${form}`;
  return z.string({ error }).refine(
    (value) => {
      try {
        const url = new URL(value);
        return schemes.includes(url.protocol.slice(0, -1)) && url.hostname !== '';
      } catch {
        return false;
      }
    },
    { error },
  );
}

const WRAPPERS = new Set(['optional', 'default', 'prefault', 'nullable', 'readonly']);

function declaredType(option: z.core.$ZodType): string {
  let def = option._zod.def as z.core.$ZodTypeDef & { innerType?: z.core.$ZodType };
  while (WRAPPERS.has(def.type) && def.innerType !== undefined) {
    def = def.innerType._zod.def as typeof def;
  }
  return def.type;
}

const READERS: Record<string, (text: string) => unknown> = {
  string: (text) => text,
  number: (text) => (/^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text),
  boolean: (text) => (text === 'true' ? true : text === 'false' ? false : text),
};

/**
 * A coordinator URL's query parameters as options of `schema` (`?minReplicas=1`), each read as the
 * option's type (functions, objects and `except` cannot be set); INVALID_OPTIONS for an unknown or
 * repeated parameter, or one that contradicts `given`.
 */
export function optionsFromUrl(
  store: string,
  schema: z.ZodObject,
  params: URLSearchParams,
  given: Readonly<Record<string, unknown>>,
  except: readonly string[] = ['url'],
): Record<string, unknown> {
  const settable = Object.entries(schema.shape)
    .filter(([name, option]) => !except.includes(name) && declaredType(option) in READERS)
    .map(([name]) => name);
  const options: Record<string, unknown> = {};
  for (const name of new Set(params.keys())) {
    const option = schema.shape[name];
    if (option === undefined || !settable.includes(name)) {
      throw new VestaError(
        'INVALID_OPTIONS',
        `unknown ${store} URL parameter ${name} (known: ${settable.join(', ')})`,
      );
    }
    const texts = params.getAll(name);
    if (texts.length > 1) {
      throw new VestaError('INVALID_OPTIONS', `${store} URL parameter ${name} is given twice`);
    }
    const value = READERS[declaredType(option)]?.(texts[0] ?? '');
    checkGivenOnce(store, name, given[name], value);
    options[name] = value;
  }
  return options;
}

function checkGivenOnce(store: string, name: string, given: unknown, fromUrl: unknown): void {
  if (given !== undefined && fromUrl !== undefined && given !== fromUrl) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `${name} is given as an option (${JSON.stringify(given)}) and in the ${store} URL (${JSON.stringify(fromUrl)}): give it once`,
    );
  }
}

function onlyKeys(
  options: Record<string, unknown>,
  keys: readonly string[] | undefined,
): Record<string, unknown> {
  if (keys === undefined) return options;
  return Object.fromEntries(Object.entries(options).filter(([name]) => keys.includes(name)));
}

/** A coordinator URL as its package reads it: where it points, and its query. */
export interface ReadUrl<T> {
  readonly target: T;
  readonly params: URLSearchParams;
}

/** `options` with what its URL's query sets (only `keys`, when given), and where the URL points. */
export function withUrlOptions<O extends { readonly url: string }, T>(
  store: string,
  schema: z.ZodObject,
  read: (url: string) => ReadUrl<T> | undefined,
  options: O,
  keys?: readonly string[],
): O & { readonly target?: T } {
  const url = typeof options.url === 'string' ? read(options.url) : undefined;
  if (url === undefined) return options;
  const fromUrl = optionsFromUrl(store, schema, url.params, options as Record<string, unknown>);
  return { ...options, ...onlyKeys(fromUrl, keys), target: url.target };
}

/** The reader of a `scheme://host:port[,host:port][/root][?option=value...]` URL. */
export function hostListUrl(
  scheme: string,
): (url: string) => ReadUrl<{ readonly hosts: string; readonly root?: string }> | undefined {
  const form = new RegExp(`^${scheme}://([^/?#@]+)(/[^?#]*)?(?:\\?([^#]*))?$`, 'i');
  return (url) => {
    const match = form.exec(url);
    if (match?.[1] === undefined) return undefined;
    const root = match[2] === undefined || match[2] === '/' ? undefined : match[2];
    return {
      target: { hosts: match[1], ...(root === undefined ? {} : { root }) },
      params: new URLSearchParams(match[3] ?? ''),
    };
  };
}

/** Options given as a host-list `url` instead of `hosts` and `root`; INVALID_OPTIONS. */
export function withHostListUrl<O extends { readonly url?: string | undefined }>(
  store: string,
  scheme: string,
  hosts: string,
  schema: z.ZodObject,
  options: O,
  keys?: readonly string[],
): Omit<O, 'url'> {
  const { url, ...given } = options;
  const hostsGiven = (given as Record<string, unknown>)[hosts] !== undefined;
  const form = `${scheme}://host:port[,host:port][/root][?option=value...]`;
  if (url === undefined) {
    if (!hostsGiven) throw new VestaError('INVALID_OPTIONS', `${hosts} or url is required`);
    return given;
  }
  const read = typeof url === 'string' ? hostListUrl(scheme)(url) : undefined;
  if (read === undefined) throw new VestaError('INVALID_OPTIONS', `url must be ${form}`);
  if (hostsGiven) throw new VestaError('INVALID_OPTIONS', `give ${hosts} or url, not both`);
  const fromQuery = optionsFromUrl(store, schema, read.params, given, ['url', hosts, 'root']);
  const { root } = read.target;
  checkGivenOnce(store, 'root', (given as { root?: unknown }).root, root);
  return {
    ...given,
    ...onlyKeys(fromQuery, keys),
    [hosts]: read.target.hosts,
    ...(root === undefined ? {} : { root }),
  };
}
