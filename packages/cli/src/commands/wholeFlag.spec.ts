import { wholeNumber } from '@vesta/core/kit';
import { caught } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { PORT, wholeBigFlag, wholeFlag } from './wholeFlag.js';

describe('wholeFlag (the command line’s one whole-number parser)', () => {
  it('reads digits only, up to 15, and leaves an absent flag undefined', () => {
    expect(wholeFlag('--n', '007')).toBe(7);
    expect(wholeFlag('--n', '999999999999999')).toBe(999_999_999_999_999);
    expect(wholeFlag('--n', undefined)).toBeUndefined();
    for (const raw of ['1e3', ' 7', '0x10', '-1', '1.5', '', '1234567890123456']) {
      expect(caught(() => wholeFlag('--n', raw)).message).toBe(
        `--n must be a whole decimal number, got ${JSON.stringify(raw)}`,
      );
    }
  });

  it('checks a range when given, and says what it is under the code asked for', () => {
    expect(wholeFlag('--port', '65535', PORT)).toBe(65_535);
    const tooBig = caught(() => wholeFlag('--port', '65536', PORT));
    expect(tooBig.code).toBe('INVALID_OPTIONS');
    expect(tooBig.message).toBe('--port must be a whole number from 0 to 65535, got 65536');
    const notDigits = caught(() => wholeFlag('--id', 'x', wholeNumber(0, 9), 'INVALID_ARGUMENT'));
    expect(notDigits.code).toBe('INVALID_ARGUMENT');
    expect(notDigits.message).toBe('--id must be a whole number from 0 to 9, got "x"');
  });

  it('reads a bigint of up to 19 digits from a minimum, as INVALID_ARGUMENT naming the flag', () => {
    expect(wholeBigFlag('--start', '9223372036854775807', 0n)).toBe(9_223_372_036_854_775_807n);
    const tooSmall = caught(() => wholeBigFlag('--step', '0', 1n));
    expect(tooSmall.code).toBe('INVALID_ARGUMENT');
    expect(tooSmall.message).toBe('--step must be a whole number of at least 1, got "0"');
  });
});
