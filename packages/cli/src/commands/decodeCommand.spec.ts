import { describe, expect, it } from 'vitest';
import { decodeId } from './decodeCommand.js';
import { makeId } from './makeCommand.js';

const EPOCH = Date.parse('2025-01-01T00:00:00Z');

describe('vesta decode and vesta make', () => {
  it.each([
    [{ time: '0', seq: '0', machine: '0' }, 0n],
    [{ time: '1', seq: '0', machine: '0' }, 1n << 30n],
    [{ time: '0', seq: '1', machine: '0' }, 1n << 10n],
    [
      { time: '1073741823', seq: '1048575', machine: '1023', genMethod: '3', version: '1' },
      ((1n << 64n) - 1n) ^ (1n << 62n),
    ],
    [
      {
        time: '1099511627775',
        seq: '1023',
        machine: '1023',
        genMethod: '3',
        type: 'min-granularity',
        version: '1',
      },
      (1n << 64n) - 1n,
    ],
  ])('make %j into %s, which decodes back', (flags, id) => {
    expect(makeId(flags)).toBe(id);
    const decoded = decodeId(String(id), EPOCH);
    expect(decoded.machine).toBe(Number(flags.machine));
    expect(decoded.seq).toBe(Number(flags.seq));
    expect(decoded.time).toBe(Number(flags.time));
  });

  it('turns --date into the time field, and the date comes back', () => {
    const id = makeId({ date: '2025-01-01T00:01:00Z', seq: '3', machine: '1023', genMethod: '2' });
    expect(decodeId(String(id), EPOCH)).toMatchObject({
      time: 60,
      seq: 3,
      machine: 1023,
      genMethod: 2,
      date: '2025-01-01T00:01:00.000Z',
    });
  });

  it.each([
    [{ time: '1', seq: '1048576', machine: '0' }, 'seq'],
    [{ time: '1073741824', seq: '0', machine: '0' }, 'time'],
    [{ time: '1', seq: '0', machine: '1024' }, 'machine'],
    [{ time: '1', seq: '0', machine: '0', genMethod: '4' }, 'genMethod'],
    [{ time: '1', seq: '0', machine: '-1' }, '--machine'],
    [{ seq: '0', machine: '0' }, '--time'],
    [{ time: '1', date: '2025-01-01T00:00:00Z', seq: '0', machine: '0' }, '--time'],
  ])('refuse %j naming %s, never spilling into a neighbour', (flags, field) => {
    expect(() => makeId(flags)).toThrow(
      expect.objectContaining({
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining(field),
      }),
    );
  });

  it("decodes Java's signed decimal of a version-1 id as the id itself", () => {
    const id = makeId({ time: '5', seq: '6', machine: '7', version: '1' });
    expect(decodeId(BigInt.asIntN(64, id).toString(), EPOCH)).toEqual(decodeId(String(id), EPOCH));
  });

  it.each(['-9223372036854775809', '-0', '1e3', '18446744073709551616', '0x10', ''])(
    'refuse to decode %j',
    (raw) => {
      expect(() => decodeId(raw, EPOCH)).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
    },
  );
});
