import { z } from 'zod';
import { IdScrambler } from '../codec/IdScrambler.js';
import { VestaError } from '../errors/VestaError.js';
import type { TimeSource } from '../time/TimeSource.js';

export function wholeNumber(min: number, max: number): z.ZodNumber {
  const e = { error: `must be a whole number from ${min} to ${max}` };
  return z.number(e).int(e).min(min, e).max(max, e);
}

const NON_EMPTY = { error: 'must be a non-empty string' };
export const nonEmptyString = z.string(NON_EMPTY).min(1, NON_EMPTY);

const HOST = { error: 'must be an address or host name' };
/** An address or host name to listen on: non-empty, no white space. */
export const hostOption = z.string(HOST).regex(/^\S+$/, HOST);

/** A TCP port; 0 asks the OS for a free one. */
export const portOption = wholeNumber(0, 65_535);

const TOKEN = { error: 'must be 1 to 1024 visible ASCII characters, without spaces' };
/** A shared secret clients present: 1 to 1024 visible ASCII characters (fits an HTTP header and the handshake). */
export const authTokenOption = z.string(TOKEN).regex(/^[\x21-\x7e]{1,1024}$/, TOKEN);

/** A function (a clock, a callback), typed as `T`. */
export function functionOption<T>(what = 'a function'): z.ZodType<T, T> {
  return z.custom<T>((value) => typeof value === 'function', { error: `must be ${what}` });
}

/** An object with the named methods (a logger, a provider, a metrics registry), typed as `T`. */
export function objectWith<T>(what: string, ...methods: string[]): z.ZodType<T, T> {
  return z.custom<T>((value) => hasMethods(value, methods), { error: `must be ${what}` });
}

function hasMethods(value: unknown, methods: readonly string[]): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    methods.every((m) => typeof (value as Record<string, unknown>)[m] === 'function')
  );
}

/** A `TimeSource` (wall clock, monotonic clock, timers): tests pass a manual one. */
export const timeSourceOption: z.ZodType<TimeSource, TimeSource> = objectWith<TimeSource>(
  'a TimeSource: now(), monotonic() and setTimer()',
  'now',
  'monotonic',
  'setTimer',
);

/** A value read by `parse` (e.g. `parseEpoch`), whose error message becomes the option's problem. */
export function parsedOption<Out, In = unknown>(parse: (value: In) => Out): z.ZodType<Out, In> {
  return z
    .unknown()
    .optional()
    .transform((value, ctx) => {
      try {
        return parse(value as In);
      } catch (error) {
        ctx.issues.push({
          code: 'custom',
          input: value,
          params: { verbatim: true },
          message: VestaError.is(error) ? error.message : String(error),
        });
        return z.NEVER;
      }
    }) as unknown as z.ZodType<Out, In>;
}

/** An option typed as `T` that a later check validates with its own code (INVALID_LAYOUT...). */
export function checkedLater<T>(): z.ZodType<T, T> {
  return z.custom<T>(() => true);
}

/** A value `schema` accepts, typed as `T` (the schema checks the shape, `T` says what it means). */
export function typedAs<T>(schema: z.ZodType, error: string): z.ZodType<T, T> {
  return z.custom<T>((value) => schema.safeParse(value).success, { error });
}

/** A scramble key (16 bytes at least) or an {@link IdScrambler}, resolved to the scrambler. */
export const scrambleKeyOption = parsedOption(
  (value: string | Uint8Array | IdScrambler | undefined): IdScrambler | undefined =>
    value === undefined || isScrambler(value) ? value : new IdScrambler(value),
).optional();

/** A scrambler of this or another installed copy of the package (by its methods, not instanceof). */
function isScrambler(value: unknown): value is IdScrambler {
  return hasMethods(value, ['scramble', 'unscramble', 'format', 'parse']);
}
