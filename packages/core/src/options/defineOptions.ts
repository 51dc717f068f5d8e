import { z } from 'zod';
import { VestaError } from '../errors/VestaError.js';

/** What {@link defineOptions} returns: the schema and the one way to resolve options with it. */
export interface OptionsDefinition<S extends z.ZodType> {
  readonly schema: S;
  /** Validates options once (INVALID_OPTIONS naming the first bad one) and freezes the result. */
  resolve(input: unknown): Readonly<z.output<S>>;
}

/** Shows a rejected value briefly, never a whole object, a secret-sized string or a URL's password. */
function shown(value: unknown): string {
  if (typeof value === 'string') {
    const text = withoutSecrets(value);
    return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}...` : text);
  }
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return 'a function';
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}

function describeIssue(what: string, issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => JSON.stringify(k)).join(', ');
    return `unknown ${what} option${issue.keys.length > 1 ? 's' : ''} ${path === '' ? '' : `in ${path}: `}${keys}`;
  }
  if (path === '') return `${what} options ${issue.message}`;
  // A parser's own sentence already names the option (parseEpoch: "epoch must be ...").
  if (issue.code === 'custom' && issue.params?.['verbatim'] === true) return issue.message;
  const got = 'input' in issue ? `, got ${shown(issue.input)}` : '';
  return `${path} ${issue.message}${got}`;
}

function isPlain(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return Array.isArray(value) || proto === Object.prototype || proto === null;
}

/** Freezes what resolving built, never a value the caller passed through (a logger stays theirs). */
function deepFreeze<T>(value: T, input: unknown): T {
  if (isPlain(value) && value !== input && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const [key, inner] of Object.entries(value)) {
      deepFreeze(inner, isPlain(input) ? (input as Record<string, unknown>)[key] : undefined);
    }
  }
  return value;
}

/**
 * The one way every package declares its options (type, range, default), so every mistake reads
 * the same way.
 * @example
 * const listenerOptions = defineOptions('listener', {
 *   host: hostOption.default('127.0.0.1'),
 *   port: wholeNumber(0, 65_535).default(8080),
 * });
 * listenerOptions.resolve({ port: 0 }); // { host: '127.0.0.1', port: 0 }, frozen
 */
export function defineOptions<Shape extends z.ZodRawShape>(
  what: string,
  shape: Shape,
): OptionsDefinition<z.ZodObject<Shape, z.core.$strict>> {
  const schema = z.strictObject(shape, { error: () => 'must be an object' });
  return Object.freeze({
    schema,
    resolve: (input: unknown) => deepFreeze(parsed(schema, input, what), input),
  });
}

/** Checks one value (a CLI flag, an environment variable) against an option schema, named `name`. */
export function checkOption<T>(schema: z.ZodType<T>, name: string, value: unknown): T {
  return parsed(schema, value, name, name);
}

/** What `schema` makes of `input`, else INVALID_OPTIONS on its first issue (at `path` if given). */
function parsed<T>(schema: z.ZodType<T>, input: unknown, what: string, path?: string): T {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const first = result.error.issues[0] as z.core.$ZodIssue;
  const issue = path === undefined ? first : { ...first, path: [path] };
  throw new VestaError('INVALID_OPTIONS', describeIssue(what, issue), {
    details: { option: issue.path.map(String).join('.') },
  });
}

/**
 * A URL as messages may show it, without credentials or query; other text as it is.
 * @example withoutSecrets('redis://:hunter2@db:6379/0?x=1') // 'redis://***@db:6379/0?…'
 */
export function withoutSecrets(text: string): string {
  const url = /^([a-z][a-z0-9+.-]*:\/\/)(.*)$/is.exec(text);
  if (url === null) return text;
  let rest = url[2] ?? '';
  // The last `@` anywhere: a password may hold a raw `/`, `?` or `#` (masking too much is fine).
  const at = rest.lastIndexOf('@');
  if (at >= 0) rest = `***@${rest.slice(at + 1)}`;
  const query = rest.search(/[?#]/);
  return `${url[1] ?? ''}${query >= 0 ? `${rest.slice(0, query)}?…` : rest}`;
}

/** Splits options by key: `own` (anything but an object as it is, to be refused) and the rest. */
export function splitOptions(
  keys: ReadonlySet<string>,
  options: unknown,
): { readonly own: unknown; readonly rest: Record<string, unknown> } {
  if (typeof options !== 'object' || options === null) return { own: options, rest: {} };
  const own: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) (keys.has(key) ? own : rest)[key] = value;
  return { own, rest };
}
