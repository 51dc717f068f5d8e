import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VestaError } from '../errors/VestaError.js';
import { parseId } from './IdForm.js';

const MAX_U64 = (1n << 64n) - 1n;

describe('parseId', () => {
  it.each([
    ['0', 0n],
    ['1', 1n],
    ['9007199254740993', 9007199254740993n],
    ['18446744073709551615', MAX_U64],
  ])('reads the decimal string %s exactly', (text, expected) => {
    expect(parseId(text)).toBe(expected);
  });

  it.each([
    ['-1', MAX_U64],
    ['-9223372036854775808', 1n << 63n],
    ['-9223372036854775807', (1n << 63n) + 1n],
  ])("reads Java's signed long %s as the unsigned id %s", (text, expected) => {
    expect(parseId(text)).toBe(expected);
  });

  it('takes bigints in 0..2^64-1 as they are', () => {
    expect(parseId(0n)).toBe(0n);
    expect(parseId(MAX_U64)).toBe(MAX_U64);
  });

  it('round-trips every unsigned 64-bit value through its decimal string', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: MAX_U64 }), (id) => {
        expect(parseId(id.toString())).toBe(id);
      }),
    );
  });

  it.each<[string, unknown]>([
    ['a non-numeric string', 'abc'],
    ['the empty string', ''],
    ["a negative decimal below Java's long", '-9223372036854775809'],
    ['minus zero', '-0'],
    ['a negative with a leading zero', '-01'],
    ['a double minus', '--1'],
    ['a plus sign', '+1'],
    ['2^64', '18446744073709551616'],
    ['a 21-digit decimal', '100000000000000000000'],
    ['a fraction', '1.5'],
    ['a trailing dot', '1.'],
    ['hex', '0x1f'],
    ['binary', '0b101'],
    ['an exponent', '1e3'],
    ['leading whitespace', ' 1'],
    ['trailing whitespace', '1 '],
    ['a trailing newline', '1\n'],
    ['digits split by an underscore', '1_000'],
    ['a bigint suffix', '12n'],
    ['full-width digits', '１２'],
    ['a number', 1],
    ['a safe integer number', 12345],
    ['a number above 2^53', 2 ** 60],
    ['NaN', Number.NaN],
    ['a negative bigint', -1n],
    ['a bigint of 2^64', 1n << 64n],
    ['null', null],
    ['undefined', undefined],
    ['an object', { id: '1' }],
    ['an array', ['1']],
  ])('rejects %s with INVALID_ARGUMENT', (_name, value) => {
    let caught: unknown;
    try {
      parseId(value);
    } catch (error) {
      caught = error;
    }
    expect(VestaError.is(caught, 'INVALID_ARGUMENT')).toBe(true);
  });
});
