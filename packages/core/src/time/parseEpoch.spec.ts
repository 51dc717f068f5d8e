import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveIdServiceOptions } from '../service/IdServiceOptions.js';
import { DEFAULT_EPOCH_MS, JAVA_VESTA_EPOCH_MS, parseEpoch } from './parseEpoch.js';
import { codeOf } from '@vesta/testkit';

describe('parseEpoch', () => {
  it.each<[string, number | Date | string | undefined, number]>([
    ['nothing as the default epoch', undefined, DEFAULT_EPOCH_MS],
    ['a number as Unix ms', JAVA_VESTA_EPOCH_MS, JAVA_VESTA_EPOCH_MS],
    ['zero', 0, 0],
    ['a string of digits as Unix ms', '1420041600000', JAVA_VESTA_EPOCH_MS],
    ['"2025" as 2025 ms, not as a year', '2025', 2025],
    ['"0" as the Unix epoch', '0', 0],
    ['a Date', new Date('2020-01-01T00:00:00Z'), Date.UTC(2020, 0, 1)],
    ['a date-time in UTC', '2025-01-01T00:00:00Z', Date.UTC(2025, 0, 1)],
    ['a date-time with milliseconds', '2025-01-01T00:00:00.000Z', Date.UTC(2025, 0, 1)],
    ['a date-time with one fraction digit', '2025-01-01T00:00:00.5Z', Date.UTC(2025, 0, 1) + 500],
    ['a date-time without seconds', '2025-01-01T08:30Z', Date.UTC(2025, 0, 1, 8, 30)],
    ['a positive offset', '2015-01-01T00:00:00+08:00', JAVA_VESTA_EPOCH_MS],
    ['a positive offset with ms', '2025-01-01T00:00:00.000+08:00', Date.UTC(2024, 11, 31, 16)],
    ['a negative offset', '2024-12-31T19:00:00-05:00', Date.UTC(2025, 0, 1)],
    ['a half-hour offset', '2025-01-01T05:30:00+05:30', Date.UTC(2025, 0, 1)],
    ['a bare date as UTC midnight', '2025-01-01', Date.UTC(2025, 0, 1)],
    ['a leap day', '2024-02-29', Date.UTC(2024, 1, 29)],
    ['the last millisecond of a day', '2025-01-01T23:59:59.999Z', Date.UTC(2025, 0, 2) - 1],
  ])('reads %s', (_name, value, expected) => {
    expect(parseEpoch(value)).toBe(expected);
  });

  it.each<[string, unknown]>([
    ['words', 'March 3'],
    ['a negative number', -1],
    ['a negative number as a string', '-1'],
    ['a US date', '1/2/2020'],
    ['an empty string', ''],
    ['a fraction', 1.5],
    ['a fraction as a string', '1.5'],
    ['a number past the safe integers', 2 ** 53],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['an invalid Date', new Date(Number.NaN)],
    ['a Date before 1970', new Date('1969-12-31T23:59:59Z')],
    ['a date-time without a zone (local time)', '2025-01-01T00:00:00'],
    ['a year alone, with a sign', '+2025'],
    ['a year and month', '2025-01'],
    ['a date that does not exist', '2025-02-30'],
    ['a leap day of a common year', '2025-02-29'],
    ['month 13', '2025-13-01'],
    ['hour 24', '2025-01-01T24:00:00Z'],
    ['minute 60', '2025-01-01T00:60:00Z'],
    ['an offset of 24 hours', '2025-01-01T00:00:00+24:00'],
    ['an offset without a colon', '2025-01-01T00:00:00+0800'],
    ['a space for the T', '2025-01-01 00:00:00Z'],
    ['four fraction digits', '2025-01-01T00:00:00.0000Z'],
    ['surrounding spaces', ' 2025-01-01 '],
    ['a year before 1970', '1969-12-31'],
    ['a two-digit year', '0050-01-01'],
    ['a date before 1970 by its offset', '1970-01-01T00:00:00+01:00'],
    ['a Date.toString() form', 'Wed Jan 01 2025 00:00:00 GMT+0000'],
    ['an RFC 2822 date', 'Wed, 01 Jan 2025 00:00:00 GMT'],
    ['an object', {}],
    ['a bigint', 1n],
  ])('refuses %s as INVALID_OPTIONS', (_name, value) => {
    expect(codeOf(() => parseEpoch(value as string))).toBe('INVALID_OPTIONS');
  });

  it('names the option in its message', () => {
    expect(() => parseEpoch('March 3', '--epoch')).toThrow(/^--epoch must be .*"March 3"/);
  });

  it('reads every whole non-negative safe integer the same as a number and as digits', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (ms) => {
        expect(parseEpoch(ms)).toBe(ms);
        expect(parseEpoch(String(ms))).toBe(ms);
      }),
      { numRuns: 100 },
    );
  });

  it('reads the ISO string of every date from 1970 on back to its time', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Date.UTC(9999, 11, 31) }), (ms) => {
        expect(parseEpoch(new Date(ms).toISOString())).toBe(ms);
      }),
      { numRuns: 100 },
    );
  });

  it('is what the id service options read', () => {
    expect(resolveIdServiceOptions({ machineId: 5, epoch: '2025' }).epochMs).toBe(2025);
    expect(resolveIdServiceOptions({ machineId: 5, epoch: '2025-01-01' }).epochMs).toBe(
      Date.UTC(2025, 0, 1),
    );
    expect(codeOf(() => resolveIdServiceOptions({ machineId: 5, epoch: 'March 3' }))).toBe(
      'INVALID_OPTIONS',
    );
  });
});
