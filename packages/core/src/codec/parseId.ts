import { VestaError } from '../errors/VestaError.js';
import { FIXED_WIDTH_FORMS } from './fixedWidthForms.js';
import { parseIdForm, type IdForm } from './IdForm.js';

const DECIMAL = /^-?[0-9]{1,20}$/;
const TWO_64 = 1n << 64n;
const MAX_U64 = TWO_64 - 1n;
const MIN_SIGNED = -(1n << 63n);

function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : typeof value;
}

function outOfRange(text: string): VestaError {
  return new VestaError('INVALID_ARGUMENT', `id must lie in 0..2^64-1, got ${text}`);
}

/** A decimal string, unsigned or as Java's signed `long` prints it (-2^63..-1 stand for 2^63..2^64-1). */
function parseDecimal(text: string): bigint {
  // Java prints no leading zero after its minus sign (nor -0).
  if (!DECIMAL.test(text) || text.startsWith('-0')) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `id must be a decimal string or a bigint, got ${shown(text)}`,
    );
  }
  const value = BigInt(text);
  if (value < 0n) {
    if (value < MIN_SIGNED) {
      throw new VestaError(
        'INVALID_ARGUMENT',
        `a negative id (Java's signed long) must lie in -2^63..-1, got ${text}`,
      );
    }
    return value + TWO_64;
  }
  if (value > MAX_U64) throw outOfRange(text);
  return value;
}

/**
 * Reads an unsigned 64-bit id without ever passing it through a JavaScript number: a bigint as
 * it is, or a string in `form`.
 *
 * Without a form (or `'decimal'`, `'signed'`) a string is decimal: 0 to 2^64-1, or a negative
 * number of Java's signed `long` (-2^63 to -1, standing for 2^63 to 2^64-1: the version-1 ids a
 * Java Vesta prints), so ids written by either side read the same. Other forms are not guessed
 * (sixteen digits are a valid decimal and a valid hex id): name them. `'hex'` reads either
 * case; `'base32'` is case-insensitive and reads Crockford's aliases (I, L as 1; O as 0), but
 * neither hyphens nor check symbols.
 *
 * INVALID_ARGUMENT for anything else: signs other than a leading minus, spaces, exponents,
 * fractions, `0x` prefixes, a wrong width or letter, negative bigints, and values of 2^64 or
 * more. Numbers are refused outright: above 2^53 they are already wrong.
 *
 * @example
 * parseId('18446744073709551615'); // 18446744073709551615n
 * parseId('-1');                   // 18446744073709551615n (Java's long of the same id)
 * parseId('FZZZZZZZZZZZZ', 'base32'); // 18446744073709551615n
 */
export function parseId(value: unknown, form?: IdForm): bigint {
  const f = form === undefined ? 'decimal' : parseIdForm(form);
  if (typeof value === 'bigint') {
    if (value < 0n || value > MAX_U64) throw outOfRange(String(value));
    return value;
  }
  const decimal = f === 'decimal' || f === 'signed';
  if (typeof value !== 'string') {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `id must be a ${decimal ? 'decimal' : f} string or a bigint, got ${shown(value)}`,
    );
  }
  if (decimal) return parseDecimal(value);
  const spec = FIXED_WIDTH_FORMS[f];
  const id = spec.decode(value);
  if (id === undefined) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `a ${f} id must be ${spec.described}, got ${shown(value)}`,
    );
  }
  if (id > MAX_U64) throw outOfRange(`${f} ${JSON.stringify(value)}`);
  return id;
}
