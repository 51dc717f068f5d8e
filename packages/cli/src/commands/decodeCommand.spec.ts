import { describe, expect, it } from 'vitest';
import { LAYOUT_PRESETS } from '@vesta/core';
import { codeOf } from '@vesta/testkit';
import { decodeId, layoutAndEpoch } from './decodeCommand.js';
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

  it.each(['-1', '1e3', '18446744073709551616', '0x10', ''])('refuse to decode %j', (raw) => {
    expect(() => decodeId(raw, EPOCH)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });

  it("decodes Discord's documented id with --layout discord, in Discord's epoch", () => {
    expect(
      decodeId('175928847299117063', Date.UTC(2015, 0, 1), LAYOUT_PRESETS.discord.layout),
    ).toMatchObject({
      time: 41944705796,
      seq: 7,
      machine: 32,
      genMethod: 0,
      date: '2016-04-30T11:18:25.796Z',
    });
  });

  it('makes a Leaf id with --layout leaf and reads the epoch of the preset', () => {
    const id = makeId({
      layout: 'leaf',
      date: '2026-01-01T00:00:00.123Z',
      seq: '5',
      machine: '923',
    });
    expect(id).toBe(
      (BigInt(Date.UTC(2026, 0, 1, 0, 0, 0, 123) - 1288834974657) << 22n) | (923n << 12n) | 5n,
    );
    expect(layoutAndEpoch('leaf', undefined).epochMs).toBe(1288834974657);
    expect(layoutAndEpoch('uid-generator:29,21,13', undefined).layout?.machine.bits).toBe(21);
  });

  it.each<[string, () => unknown, string]>([
    ['an unknown preset', () => layoutAndEpoch('snowflake', undefined), 'INVALID_OPTIONS'],
    [
      'uid-generator widths not adding up to 63',
      () => layoutAndEpoch('uid-generator:30,22,13', undefined),
      'INVALID_LAYOUT',
    ],
    [
      'a JSON spec that is no layout',
      () => layoutAndEpoch('{"fields":[]}', undefined),
      'INVALID_LAYOUT',
    ],
    [
      'a --type the preset contradicts',
      () => makeId({ layout: 'leaf', type: 'max-peak', time: '1', seq: '0', machine: '1' }),
      'INVALID_OPTIONS',
    ],
    [
      'a machine id wider than sonyflake allows',
      () => makeId({ layout: 'sonyflake', time: '1', seq: '0', machine: '65536' }),
      'INVALID_ARGUMENT',
    ],
  ])('refuses %s', (_name, call, code) => {
    expect(codeOf(call)).toBe(code);
  });
});
