import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caught } from '@vesta/testkit';
import { formatId, ID_FORMS, type IdForm, parseId } from './IdForm.js';

const MAX_U64 = (1n << 64n) - 1n;
const EDGES = [0n, 1n, (1n << 63n) - 1n, 1n << 63n, MAX_U64];
/** Every 64-bit value, with the edges drawn often. */
const anyId = fc.oneof(fc.bigInt({ min: 0n, max: MAX_U64 }), fc.constantFrom(...EDGES));
const SORTABLE = ['hex', 'base32', 'base62'] as const;

/** Each form computed independently of the encoders: bigint radix conversion, then the form's digits. */
function oracle(id: bigint, form: IdForm): string {
  if (form === 'decimal') return id.toString(10);
  if (form === 'signed') return BigInt.asIntN(64, id).toString(10);
  if (form === 'hex') return id.toString(16).padStart(16, '0');
  if (form === 'base32') {
    const crockford = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    return [...id.toString(32).padStart(13, '0')]
      .map((d) => crockford.charAt(parseInt(d, 32)))
      .join('');
  }
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let out = '';
  for (let rest = id, i = 0; i < 11; i++, rest /= 62n)
    out = alphabet.charAt(Number(rest % 62n)) + out;
  return out;
}

/** The sign of a comparison, by code unit (for ASCII text, the byte order a database uses). */
function compare<T extends bigint | string>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

describe('formatId and parseId in every form', () => {
  it.each([
    ['hex', 0n, '0000000000000000'],
    ['hex', MAX_U64, 'ffffffffffffffff'],
    ['base32', 0n, '0000000000000'],
    ['base32', 1n << 63n, '8000000000000'],
    ['base32', MAX_U64, 'FZZZZZZZZZZZZ'],
    ['base62', 1n, '00000000001'],
    ['base62', (1n << 63n) - 1n, 'AzL8n0Y58m7'],
    ['base62', MAX_U64, 'LygHa16AHYF'],
    ['signed', (1n << 63n) - 1n, '9223372036854775807'],
    ['signed', 1n << 63n, '-9223372036854775808'],
    ['signed', MAX_U64, '-1'],
    ['decimal', MAX_U64, '18446744073709551615'],
  ] as const)('writes %s of %s as %s, and reads it back', (form, id, text) => {
    expect(formatId(id, form)).toBe(text);
    expect(parseId(text, form)).toBe(id);
  });

  it.each(ID_FORMS)('%s: round-trips every 64-bit value, digit for digit as the oracle', (form) => {
    fc.assert(
      fc.property(anyId, (id) => {
        const text = formatId(id, form);
        expect(text).toBe(oracle(id, form));
        expect(parseId(text, form)).toBe(id);
      }),
      { numRuns: 2000 },
    );
  });

  it.each(SORTABLE)('%s: is fixed-width, and string order is id order', (form) => {
    const width = formatId(0n, form).length;
    fc.assert(
      fc.property(anyId, anyId, (a, b) => {
        const [x, y] = [formatId(a, form), formatId(b, form)];
        expect(x.length).toBe(width);
        expect(y.length).toBe(width);
        expect(compare(x, y)).toBe(compare(a, b));
        expect(Buffer.compare(Buffer.from(x), Buffer.from(y))).toBe(compare(a, b));
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps the order of neighbours across every digit carry', () => {
    for (const form of SORTABLE) {
      for (let bit = 0n; bit < 64n; bit++) {
        const id = 1n << bit;
        expect(formatId(id - 1n, form) < formatId(id, form), `${form} 2^${bit}`).toBe(true);
      }
    }
  });

  it("reads base32 case-insensitively, with Crockford's aliases I and L for 1, O for 0", () => {
    const id = parseId('01ABCDEFGHJKM', 'base32');
    expect(parseId('01abcdefghjkm', 'base32')).toBe(id);
    expect(parseId('0IABCDEFGHJKM', 'base32')).toBe(id);
    expect(parseId('OlABCDEFGHJKM', 'base32')).toBe(id);
    expect(formatId(id, 'base32')).toBe('01ABCDEFGHJKM');
  });

  it('reads hex in either case and writes it in lower case', () => {
    expect(parseId('FFFFFFFFFFFFFFFF', 'hex')).toBe(MAX_U64);
    expect(formatId(0xabcdefn, 'hex')).toBe('0000000000abcdef');
  });

  it('reads the decimal and signed forms alike: unsigned, or Java-signed for ids of 2^63 and up', () => {
    fc.assert(
      fc.property(anyId, (id) => {
        const signed = formatId(id, 'signed');
        expect(parseId(signed)).toBe(id);
        expect(parseId(signed, 'decimal')).toBe(id);
        expect(parseId(formatId(id), 'signed')).toBe(id);
      }),
    );
  });

  it.each<[string, IdForm, string]>([
    ['a short base32', 'base32', '000000000000'],
    ['a long base32', 'base32', '00000000000000'],
    ['base32 with U', 'base32', '000000000000U'],
    ['base32 with a hyphen', 'base32', '000000-000000'],
    ['base32 with a space', 'base32', '000000 000000'],
    ['base32 with a non-ASCII letter', 'base32', '000000000000é'],
    ['a short base62', 'base62', '0000000000'],
    ['base62 with a dash', 'base62', '0000000000-'],
    ['a short hex', 'hex', 'fffffffffffffff'],
    ['hex with 0x', 'hex', '0xffffffffffffff'],
    ['hex with g', 'hex', '000000000000000g'],
    ['a decimal in base62', 'base62', '123'],
  ])('rejects %s with INVALID_ARGUMENT naming the form', (_name, form, text) => {
    const error = caught(() => parseId(text, form));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain(form);
  });

  it.each<[IdForm, string]>([
    ['base32', 'G000000000000'],
    ['base32', 'ZZZZZZZZZZZZZ'],
    ['base62', 'LygHa16AHYG'],
    ['base62', 'zzzzzzzzzzz'],
  ])('rejects %s %s, a value of 2^64 or more, as out of range', (form, text) => {
    const error = caught(() => parseId(text, form));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('0..2^64-1');
  });

  it.each<[string, unknown, unknown]>([
    ['a negative bigint', -1n, 'base32'],
    ['2^64', 1n << 64n, 'hex'],
    ['a decimal string above 2^64-1', '18446744073709551616', 'signed'],
    ['an unknown form', 1n, 'base36'],
    ['a prototype key as a form', 1n, 'toString'],
    ['a number', 1, 'decimal'],
  ])('refuses to format %s', (_name, id, form) => {
    expect(caught(() => formatId(id as bigint, form as IdForm)).code).toBe('INVALID_ARGUMENT');
  });
});
