import { VestaError } from '../errors/VestaError.js';

/**
 * The text forms of an id: `decimal` (unsigned, the default), `signed` (as Java's `long` prints
 * it), and fixed-width ones whose string order is the ids' order: `hex` (16 lower-case digits),
 * `base32` (13 Crockford characters, upper case), `base62` (11 characters of `0-9A-Za-z`).
 */
export const ID_FORMS = ['decimal', 'signed', 'hex', 'base32', 'base62'] as const;
export type IdForm = (typeof ID_FORMS)[number];

const TWO_63 = 1n << 63n;
const TWO_64 = 1n << 64n;
const MAX_U64 = TWO_64 - 1n;
const DECIMAL = /^-?[0-9]{1,20}$/;
const HEX = /^[0-9a-fA-F]{16}$/;
const BASE32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE62_LOW = BigInt(62 ** 6);

/** A rejected value, briefly: a string's first `length` characters, else its type. */
export function shown(value: unknown, length = 40): string {
  return typeof value === 'string' ? JSON.stringify(value.slice(0, length)) : typeof value;
}

/** Accepts one of `forms`; anything else is INVALID_ARGUMENT naming `what`. */
export function parseFormName<F extends string>(
  forms: readonly F[],
  value: unknown,
  what: string,
  length?: number,
): F {
  if (typeof value === 'string' && (forms as readonly string[]).includes(value)) return value as F;
  throw new VestaError(
    'INVALID_ARGUMENT',
    `${what} must be one of ${forms.join(', ')}, got ${shown(value, length)}`,
    { details: { forms } },
  );
}

/** Accepts the name of an id form; anything else is INVALID_ARGUMENT naming `what`. */
export function parseIdForm(value: unknown, what = 'format'): IdForm {
  return parseFormName(ID_FORMS, value, what);
}

// One shared cell splits an id into 32-bit halves without allocating bigint arithmetic.
// Synchronous use only: splitId, then read ID_HALVES at once.
const cell = new BigUint64Array(1);
const halves = new Uint32Array(cell.buffer);
const LOW = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1 ? 0 : 1;
const HIGH = 1 - LOW;

export const ID_HALVES = {
  get high(): number {
    return halves[HIGH] as number;
  },
  get low(): number {
    return halves[LOW] as number;
  },
};

export function splitId(id: bigint): void {
  cell[0] = id;
}

export function joinId(high: number, low: number): bigint {
  halves[HIGH] = high;
  halves[LOW] = low;
  return cell[0] as bigint;
}

function digitTable(alphabet: string, aliases: Record<string, number> = {}): Int8Array {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < alphabet.length; i++) table[alphabet.charCodeAt(i)] = i;
  for (const [char, value] of Object.entries(aliases)) table[char.charCodeAt(0)] = value;
  return table;
}

// Crockford: decoding is case-insensitive, and I and L read as 1, O as 0.
const BASE32_DIGITS = digitTable(BASE32, {
  ...Object.fromEntries([...BASE32.slice(10)].map((c, i) => [c.toLowerCase(), i + 10])),
  ...{ I: 1, i: 1, L: 1, l: 1, O: 0, o: 0 },
});
const BASE62_DIGITS = digitTable(BASE62);
const BASE32_CODES = Uint8Array.from(BASE32, (c) => c.charCodeAt(0));

function readDigits(text: string, from: number, to: number, table: Int8Array): number {
  const radix = table === BASE32_DIGITS ? 32 : 62;
  let value = 0;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    const digit = code < 128 ? (table[code] as number) : -1;
    if (digit < 0) return -1;
    value = value * radix + digit;
  }
  return value;
}

function writeDigits(value: number, width: number, alphabet: string): string {
  const radix = alphabet.length;
  let out = '';
  for (let i = 0; i < width; i++) {
    out = alphabet.charAt(value % radix) + out;
    value = Math.floor(value / radix);
  }
  return out;
}

/** The 13 base32 digits of an id's halves: the top 4 bits, then two groups of 30 bits. */
export function base32OfHalves(high: number, low: number): string {
  const mid = ((high & 0x0fffffff) << 2) | (low >>> 30);
  const end = low & 0x3fffffff;
  const c = BASE32_CODES;
  // prettier-ignore
  return String.fromCharCode(
    c[high >>> 28] as number,
    c[mid >>> 25] as number, c[(mid >>> 20) & 31] as number, c[(mid >>> 15) & 31] as number,
    c[(mid >>> 10) & 31] as number, c[(mid >>> 5) & 31] as number, c[mid & 31] as number,
    c[end >>> 25] as number, c[(end >>> 20) & 31] as number, c[(end >>> 15) & 31] as number,
    c[(end >>> 10) & 31] as number, c[(end >>> 5) & 31] as number, c[end & 31] as number,
  );
}

function base32OfId(id: bigint): string {
  splitId(id);
  return base32OfHalves(ID_HALVES.high, ID_HALVES.low);
}

// Each form splits the 64 bits into parts a number holds exactly: two or three bigint operations
// an id. `decode`: undefined for malformed text; may give 2^64 or more (the caller checks).
const FIXED_WIDTH_FORMS: Readonly<
  Record<
    Exclude<IdForm, 'decimal' | 'signed'>,
    { described: string; encode(id: bigint): string; decode(text: string): bigint | undefined }
  >
> = {
  hex: {
    described: '16 hexadecimal digits',
    encode: (id) => id.toString(16).padStart(16, '0'),
    decode: (text) => (HEX.test(text) ? BigInt(`0x${text}`) : undefined),
  },
  base32: {
    described: '13 characters of Crockford base32 (0-9, A-Z without U; I and L read as 1, O as 0)',
    encode: base32OfId,
    decode: (text) => {
      if (text.length !== 13) return undefined;
      const top = readDigits(text, 0, 1, BASE32_DIGITS);
      const mid = readDigits(text, 1, 7, BASE32_DIGITS);
      const low = readDigits(text, 7, 13, BASE32_DIGITS);
      if (top < 0 || mid < 0 || low < 0) return undefined;
      return (BigInt(top) << 60n) | (BigInt(mid) << 30n) | BigInt(low);
    },
  },
  base62: {
    described: '11 characters of 0-9A-Za-z',
    // 62^6 < 2^53 and 2^64 / 62^6 < 62^5: five high digits and six low ones, each a number.
    encode: (id) =>
      writeDigits(Number(id / BASE62_LOW), 5, BASE62) +
      writeDigits(Number(id % BASE62_LOW), 6, BASE62),
    decode: (text) => {
      if (text.length !== 11) return undefined;
      const high = readDigits(text, 0, 5, BASE62_DIGITS);
      const low = readDigits(text, 5, 11, BASE62_DIGITS);
      if (high < 0 || low < 0) return undefined;
      return BigInt(high) * BASE62_LOW + BigInt(low);
    },
  },
};

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
    if (value < -TWO_63) {
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
 * Reads an unsigned 64-bit id, a bigint or a string in `form` (never guessed). Decimal reads
 * 0 to 2^64-1 and Java's signed `long`; `hex` either case; `base32` any case with Crockford's
 * aliases. Anything else is INVALID_ARGUMENT (numbers too: above 2^53 they are already wrong).
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

/**
 * An id (a bigint, or a string {@link parseId} reads) as text in `form`, the inverse of `parseId`.
 * @example
 * formatId(18446744073709551615n, 'base32'); // 'FZZZZZZZZZZZZ'
 * formatId(18446744073709551615n, 'base62'); // 'LygHa16AHYF'
 * formatId(18446744073709551615n, 'signed'); // '-1'
 */
export function formatId(id: bigint | string, form: IdForm = 'decimal'): string {
  if (form === 'base32' && typeof id === 'bigint' && id >= 0n && id < TWO_64) {
    return base32OfId(id);
  }
  const value = parseId(id);
  const f = parseIdForm(form);
  if (f === 'decimal') return value.toString();
  if (f === 'signed') return (value < TWO_63 ? value : value - TWO_64).toString();
  return FIXED_WIDTH_FORMS[f].encode(value);
}
