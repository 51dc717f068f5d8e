import { ID_HALVES, splitId } from './idHalves.js';
import type { IdForm } from './IdForm.js';

/** One fixed-width form: its width, and its two directions (decoding gives undefined for malformed text). */
interface FixedWidthForm {
  readonly width: number;
  /** What the form is, for error messages. */
  readonly described: string;
  /** `id` must lie in 0..2^64-1. */
  encode(id: bigint): string;
  /** The value of well-formed text (possibly 2^64 or more: the caller checks the range), else undefined. */
  decode(text: string): bigint | undefined;
}

const BASE32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE62_LOW = 62 ** 6;
const BASE62_LOW_BIG = BigInt(BASE62_LOW);
const HEX = /^[0-9a-fA-F]{16}$/;

/** Character code -> digit value (-1: not a digit), for codes below 128. */
function digitTable(alphabet: string, aliases: Record<string, number> = {}): Int8Array {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < alphabet.length; i++) table[alphabet.charCodeAt(i)] = i;
  for (const [char, value] of Object.entries(aliases)) table[char.charCodeAt(0)] = value;
  return table;
}

// Crockford: decoding is case-insensitive, and I and L read as 1, O as 0.
const BASE32_DIGITS = digitTable(BASE32, {
  ...Object.fromEntries([...BASE32.slice(10)].map((c, i) => [c.toLowerCase(), i + 10])),
  I: 1,
  i: 1,
  L: 1,
  l: 1,
  O: 0,
  o: 0,
});
const BASE62_DIGITS = digitTable(BASE62);

/** The digits of `text[from, to)` as one number (at most 2^53), or -1 when one is not a digit. */
function readDigits(
  text: string,
  from: number,
  to: number,
  table: Int8Array,
  radix: number,
): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    const digit = code < 128 ? (table[code] as number) : -1;
    if (digit < 0) return -1;
    value = value * radix + digit;
  }
  return value;
}

/** `value` as `width` digits of `alphabet` (value < radix^width, at most 2^53). */
function writeDigits(value: number, width: number, alphabet: string): string {
  const radix = alphabet.length;
  let out = '';
  for (let i = 0; i < width; i++) {
    out = alphabet.charAt(value % radix) + out;
    value = Math.floor(value / radix);
  }
  return out;
}

/** The character code of each base32 digit. */
const BASE32_CODES = Uint8Array.from(BASE32, (c) => c.charCodeAt(0));

/**
 * The 13 base32 digits of the id whose halves are `high` and `low`: the top 4 bits, then two
 * groups of 30 (from bit 59 down), five bits a digit; one flat string from their character codes.
 */
export function base32OfHalves(high: number, low: number): string {
  const mid = ((high & 0x0fffffff) << 2) | (low >>> 30);
  const end = low & 0x3fffffff;
  const c = BASE32_CODES;
  return String.fromCharCode(
    c[high >>> 28] as number,
    c[mid >>> 25] as number,
    c[(mid >>> 20) & 31] as number,
    c[(mid >>> 15) & 31] as number,
    c[(mid >>> 10) & 31] as number,
    c[(mid >>> 5) & 31] as number,
    c[mid & 31] as number,
    c[end >>> 25] as number,
    c[(end >>> 20) & 31] as number,
    c[(end >>> 15) & 31] as number,
    c[(end >>> 10) & 31] as number,
    c[(end >>> 5) & 31] as number,
    c[end & 31] as number,
  );
}

/** The 13 base32 digits of `id` (0 to 2^64 - 1). */
export function base32OfId(id: bigint): string {
  splitId(id);
  return base32OfHalves(ID_HALVES.high, ID_HALVES.low);
}

/**
 * The fixed-width forms. Each splits the 64 bits into parts that fit a JavaScript number
 * exactly (at most 2^53) so that only two or three bigint operations are spent per id.
 */
export const FIXED_WIDTH_FORMS: Readonly<
  Record<Exclude<IdForm, 'decimal' | 'signed'>, FixedWidthForm>
> = {
  hex: {
    width: 16,
    described: '16 hexadecimal digits',
    encode: (id) => id.toString(16).padStart(16, '0'),
    decode: (text) => (HEX.test(text) ? BigInt(`0x${text}`) : undefined),
  },
  base32: {
    width: 13,
    described: '13 characters of Crockford base32 (0-9, A-Z without U; I and L read as 1, O as 0)',
    // 13 digits hold 65 bits: the first holds the top 4 bits, then two groups of 30.
    encode: base32OfId,
    decode: (text) => {
      if (text.length !== 13) return undefined;
      const top = readDigits(text, 0, 1, BASE32_DIGITS, 32);
      const mid = readDigits(text, 1, 7, BASE32_DIGITS, 32);
      const low = readDigits(text, 7, 13, BASE32_DIGITS, 32);
      if (top < 0 || mid < 0 || low < 0) return undefined;
      return (BigInt(top) << 60n) | (BigInt(mid) << 30n) | BigInt(low);
    },
  },
  base62: {
    width: 11,
    described: '11 characters of 0-9A-Za-z',
    // 62^6 < 2^53 and 2^64 / 62^6 < 62^5: five high digits and six low ones, each a number.
    encode: (id) =>
      writeDigits(Number(id / BASE62_LOW_BIG), 5, BASE62) +
      writeDigits(Number(id % BASE62_LOW_BIG), 6, BASE62),
    decode: (text) => {
      if (text.length !== 11) return undefined;
      const high = readDigits(text, 0, 5, BASE62_DIGITS, 62);
      const low = readDigits(text, 5, 11, BASE62_DIGITS, 62);
      if (high < 0 || low < 0) return undefined;
      return BigInt(high) * BASE62_LOW_BIG + BigInt(low);
    },
  },
};
