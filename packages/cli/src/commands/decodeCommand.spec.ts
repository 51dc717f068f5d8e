import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { decodeUuid, formatUuid, LAYOUT_PRESETS } from '@vesta/core';
import { createEmbeddedIdService } from '@vesta/embedded';
import { codeOf } from '@vesta/testkit';
import { decodeArgument, decodeId } from './decodeCommand.js';
import { layoutAndEpoch } from './layoutFlags.js';
import { convertIds } from './formatCommand.js';
import { writeId } from '../idText.js';
import { resolveIdFormFlags } from './idFormFlags.js';
import { makeId, makeUuidOf } from './makeCommand.js';

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

describe('vesta decode, make and format in other id forms', () => {
  const KEY = 'cli-spec-scramble-key-123';
  const ID = 2369919850714760191n;

  it.each(['decimal', 'signed', 'hex', 'base32', 'base62'] as const)(
    'make --format %s prints what decode --format reads back',
    (format) => {
      const how = resolveIdFormFlags({ format });
      const id = makeId({ time: '60', seq: '3', machine: '1023', genMethod: '2', version: '1' });
      const text = writeId(id, how);
      expect(decodeId(text, EPOCH, how)).toEqual(decodeId(String(id), EPOCH));
      const scrambled = resolveIdFormFlags({ format, scrambled: true, scrambleKey: KEY });
      const code = writeId(id, scrambled);
      expect(code).not.toBe(text);
      expect(decodeId(code, EPOCH, scrambled)).toEqual(decodeId(String(id), EPOCH));
    },
  );

  it('rewrites ids between forms, and scrambles and unscrambles them with the key', () => {
    expect(convertIds([String(ID)], {})).toEqual(['21RX5HH0000ZZ']);
    expect(convertIds(['21rx5hh0000zz'], { from: 'base32', to: 'hex' })).toEqual([
      ID.toString(16).padStart(16, '0'),
    ]);
    expect(convertIds(['-1', '0'], { to: 'base62' })).toEqual(['LygHa16AHYF', '00000000000']);
    const codes = convertIds([String(ID)], { scramble: true, scrambleKey: KEY });
    expect(
      convertIds(codes, { from: 'base32', to: 'decimal', unscramble: true, scrambleKey: KEY }),
    ).toEqual([String(ID)]);
  });

  it.each([
    [{ format: 'base36' }, 'INVALID_OPTIONS', '--format'],
    [{ scrambled: true }, 'INVALID_OPTIONS', 'VESTA_SCRAMBLE_KEY'],
    [{ scrambled: true, scrambleKey: 'short' }, 'INVALID_OPTIONS', '16 bytes'],
  ])('refuses the flags %j with %s', (flags, code, text) => {
    expect(() => resolveIdFormFlags(flags)).toThrow(
      expect.objectContaining({ code, message: expect.stringContaining(text) }),
    );
  });

  it.each([
    [['1'], { to: 'base36' }, 'INVALID_OPTIONS'],
    [['1'], { scramble: true }, 'INVALID_OPTIONS'],
    [['1'], { scramble: true, unscramble: true, scrambleKey: KEY }, 'INVALID_OPTIONS'],
    [['G000000000000'], { from: 'base32' }, 'INVALID_ARGUMENT'],
    [['123'], { from: 'base62' }, 'INVALID_ARGUMENT'],
  ])('format refuses %j with %j: %s', (ids, flags, code) => {
    expect(() => convertIds(ids, flags)).toThrow(expect.objectContaining({ code }));
  });

  it("decodes Discord's documented id with --layout discord, in Discord's epoch", () => {
    expect(
      decodeId(
        '175928847299117063',
        Date.UTC(2015, 0, 1),
        undefined,
        LAYOUT_PRESETS.discord.layout,
      ),
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

describe('vesta decode of UUIDs', () => {
  it('reads a Vesta UUIDv7 in every form, and an id beside it as an id', async () => {
    const ids = await createEmbeddedIdService({ machineId: 11 });
    const uuid = ids.genUuidSync();
    const id = ids.genIdSync();
    await ids.close();
    for (const form of ['canonical', 'hex', 'base32'] as const) {
      expect(decodeArgument(formatUuid(uuid, form), EPOCH)).toMatchObject({
        uuid,
        version: 7,
        vesta: true,
        machine: 11,
        genMethod: 0,
      });
    }
    expect(decodeArgument(String(id), EPOCH)).toMatchObject({ id: String(id), machine: 11 });
  });

  it('reads a random UUID as version 4, and refuses a malformed one with INVALID_ARGUMENT', () => {
    const uuid = randomUUID();
    expect(decodeArgument(uuid, EPOCH)).toEqual({ uuid, version: 4, rfc9562: true, vesta: false });
    expect(codeOf(() => decodeArgument(`${uuid}0`, EPOCH))).toBe('INVALID_ARGUMENT');
  });
});

describe('vesta make --uuid', () => {
  const FIELDS = {
    seq: '5',
    machine: '1000',
    genMethod: '2',
    type: 'min-granularity',
    version: '1',
  };

  it('makes the Vesta UUIDv7 of the fields, its time from --date or --time (Unix ms)', () => {
    const fromDate = makeUuidOf({ ...FIELDS, date: '2026-11-27T00:00:00Z' });
    const fromTime = makeUuidOf({ ...FIELDS, time: String(Date.UTC(2026, 10, 27)) });
    for (const uuid of [fromDate, fromTime]) {
      expect(decodeUuid(uuid)).toMatchObject({
        version: 7,
        vesta: true,
        unixMs: Date.UTC(2026, 10, 27),
        counter: 5,
        machine: 1000,
        genMethod: 2,
        type: 1,
        idVersion: 1,
      });
    }
    // Only the random bits differ.
    expect(fromDate.slice(0, 28)).toBe(fromTime.slice(0, 28));
  });

  it('prints it canonical by default, or in --format hex or base32', () => {
    const date = '2026-11-27T00:00:00Z';
    expect(makeUuidOf({ ...FIELDS, date })).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    expect(makeUuidOf({ ...FIELDS, date, format: 'hex' })).toMatch(/^[0-9a-f]{32}$/);
    const base32 = makeUuidOf({ ...FIELDS, date, format: 'base32' });
    expect(base32).toMatch(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    expect(decodeUuid(base32)).toMatchObject({ counter: 5, machine: 1000 });
  });

  it.each([
    [{ ...FIELDS, seq: String(2 ** 22), date: '2026-11-27T00:00:00Z' }, 'counter must be'],
    [{ ...FIELDS, machine: '65536', date: '2026-11-27T00:00:00Z' }, 'machine must be'],
    [{ ...FIELDS, genMethod: '4', date: '2026-11-27T00:00:00Z' }, 'genMethod must be'],
    [{ ...FIELDS, version: '2', date: '2026-11-27T00:00:00Z' }, 'idVersion must be'],
    [{ ...FIELDS, time: '1', date: '2026-11-27T00:00:00Z' }, 'exactly one of --time and --date'],
    [{ ...FIELDS, date: '2026-11-27T00:00:00Z', format: 'base62' }, 'format must be one of'],
  ])('refuses %j with INVALID_ARGUMENT', (flags, message) => {
    expect(codeOf(() => makeUuidOf(flags))).toBe('INVALID_ARGUMENT');
    expect(() => makeUuidOf(flags)).toThrow(message);
  });

  it('refuses --layout, --epoch and --scrambled given with it: a UUID is in Unix ms', () => {
    const flags = { ...FIELDS, date: '2026-11-27T00:00:00Z' };
    expect(() => makeUuidOf(flags, new Set(['epoch', 'layout']))).toThrow(
      '--uuid takes no --layout or --epoch',
    );
    expect(codeOf(() => makeUuidOf(flags, new Set(['scrambled'])))).toBe('INVALID_ARGUMENT');
  });
});
