import { LAYOUT_PRESETS } from '@vesta/core';
import { codeOf } from '@vesta/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildProgram } from '../program.js';
import { boundsOf, type BoundsFlags } from './boundsCommand.js';
import { decodeId } from './decodeCommand.js';
import { makeId } from './makeCommand.js';

const EPOCH = Date.UTC(2025, 0, 1);
const DAY = Date.UTC(2026, 10, 27);

const within = (bounds: ReturnType<typeof boundsOf>, id: bigint): boolean =>
  bounds.ids.some((r) => BigInt(r.min) <= id && id <= BigInt(r.max));

/** Runs `vesta ...args` in this process: what it wrote to stdout and stderr, and its exit code. */
async function vesta(...args: string[]): Promise<{ out: string; err: string; code: number }> {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((text) => {
    out += String(text);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
    err += String(text);
    return true;
  });
  const argv = ['node', 'vesta', ...args];
  await (await buildProgram(argv)).parseAsync(argv);
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { out, err, code };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('vesta bounds', () => {
  it('gives the four genMethod ranges of a UTC day, which hold the ids of that day and no other', () => {
    const bounds = boundsOf({ date: '2026-11-27' });
    expect(bounds).toMatchObject({
      from: '2026-11-27T00:00:00.000Z',
      to: '2026-11-27T23:59:59.999Z',
      fromMs: DAY,
      toMs: DAY + 86_400_000 - 1,
    });
    expect(bounds.ids.map((r) => r.genMethod)).toEqual([0, 1, 2, 3]);
    for (const r of bounds.ids) {
      expect(decodeId(r.min, EPOCH)).toMatchObject({ date: '2026-11-27T00:00:00.000Z', seq: 0 });
      expect(decodeId(r.max, EPOCH)).toMatchObject({
        date: '2026-11-27T23:59:59.000Z',
        seq: 2 ** 20 - 1,
      });
    }
    const id = (date: string, genMethod: string): bigint =>
      makeId({ date, seq: '9', machine: '1023', genMethod });
    expect(within(bounds, id('2026-11-27T00:00:00Z', '3'))).toBe(true);
    expect(within(bounds, id('2026-11-27T23:59:59Z', '1'))).toBe(true);
    expect(within(bounds, id('2026-11-26T23:59:59Z', '0'))).toBe(false);
    expect(within(bounds, id('2026-11-28T00:00:00Z', '2'))).toBe(false);
    expect(bounds.sql).toBe(
      `(${bounds.ids.map((r) => `id BETWEEN ${r.min} AND ${r.max}`).join(' OR ')})`,
    );
    expect(bounds.uuids).toEqual({
      min: '01a21a4d-4000-7000-8000-000000000000',
      max: '01a21f73-9bff-7fff-bfff-ffffffffffff',
    });
    expect(bounds.uuidSql).toBe(`id BETWEEN '${bounds.uuids.min}' AND '${bounds.uuids.max}'`);
  });

  it('reads --from and --to as ISO-8601 or Unix ms, and narrows to one range with --gen-method', () => {
    const iso = boundsOf({ from: '2026-11-27T00:00:00Z', to: '2026-11-27T23:59:59.999Z' });
    const ms = boundsOf({ from: String(DAY), to: String(DAY + 86_400_000 - 1) });
    expect(ms).toEqual(iso);
    expect(boundsOf({ date: '2026-11-27' })).toEqual(iso);
    const rest = boundsOf({ date: '2026-11-27', genMethod: '2', column: 'orders.id' });
    expect(rest.ids).toEqual([iso.ids[2]]);
    expect(rest.sql).toBe(`orders.id BETWEEN ${iso.ids[2]?.min} AND ${iso.ids[2]?.max}`);
  });

  it("gives one range for a preset whose time is the top field, in the preset's epoch", () => {
    const { ids, sql } = boundsOf({ date: '2026-11-27', layout: 'leaf' });
    const since = (ms: number): bigint => BigInt(ms - LAYOUT_PRESETS.leaf.epochMs);
    const min = since(DAY) << 22n;
    const max = (since(DAY + 86_400_000 - 1) << 22n) | ((1n << 22n) - 1n);
    expect(ids).toEqual([{ min: String(min), max: String(max) }]);
    expect(sql).toBe(`id BETWEEN ${min} AND ${max}`);
  });

  it('matches no row for a window no time unit starts in', () => {
    const bounds = boundsOf({ from: '2026-11-27T00:00:00.001Z', to: '2026-11-27T00:00:00.999Z' });
    expect(bounds.ids).toEqual([]);
    expect(bounds.sql).toBe('1 = 0');
  });

  it('with --signed, prints ids as a signed bigint column holds them, splitting a range across 2^63', () => {
    // Discord's 42-bit ms field is the top one: its ids pass 2^63 at 2^41 ms after its epoch.
    const turn = LAYOUT_PRESETS.discord.epochMs + 2 ** 41;
    const flags: BoundsFlags = { from: String(turn - 1), to: String(turn), layout: 'discord' };
    const unsigned = boundsOf(flags).ids;
    expect(unsigned).toEqual([
      {
        min: String((2n ** 41n - 1n) << 22n),
        max: String(((2n ** 41n) << 22n) | (2n ** 22n - 1n)),
      },
    ]);
    expect(boundsOf({ ...flags, signed: true }).ids).toEqual([
      { min: String((2n ** 41n - 1n) << 22n), max: '9223372036854775807' },
      { min: '-9223372036854775808', max: String(-(2n ** 63n) + 2n ** 22n - 1n) },
    ]);
  });

  it.each<[string, BoundsFlags, string]>([
    ['--from after --to', { from: '2026-11-28', to: '2026-11-27' }, 'INVALID_ARGUMENT'],
    ['--to without --from', { to: '2026-11-27' }, 'INVALID_ARGUMENT'],
    [
      '--date with --from',
      { date: '2026-11-27', from: '2026-11-27', to: '2026-11-28' },
      'INVALID_ARGUMENT',
    ],
    ['--date of a date-time', { date: '2026-11-27T00:00:00Z' }, 'INVALID_ARGUMENT'],
    ['--date of no day', { date: '2026-02-30' }, 'INVALID_ARGUMENT'],
    [
      '--from without a zone',
      { from: '2026-11-27T00:00:00', to: '2026-11-28' },
      'INVALID_ARGUMENT',
    ],
    ['--to past 48 bits of ms', { from: '0', to: String(2 ** 48) }, 'INVALID_ARGUMENT'],
    ['--gen-method 4', { date: '2026-11-27', genMethod: '4' }, 'INVALID_ARGUMENT'],
    ['--gen-method -1', { date: '2026-11-27', genMethod: '-1' }, 'INVALID_ARGUMENT'],
    ['--version 2', { date: '2026-11-27', version: '2' }, 'INVALID_ARGUMENT'],
    [
      '--gen-method 1 for Twitter ids',
      { date: '2026-11-27', layout: 'twitter', genMethod: '1' },
      'INVALID_ARGUMENT',
    ],
    ['--type 2', { date: '2026-11-27', type: '2' }, 'INVALID_ARGUMENT'],
    [
      'a --column that is no name',
      { date: '2026-11-27', column: 'id; DROP TABLE t' },
      'INVALID_ARGUMENT',
    ],
    ['an unknown preset', { date: '2026-11-27', layout: 'snowflake' }, 'INVALID_OPTIONS'],
  ])('refuses %s with %s', (_name, flags, code) => {
    expect(codeOf(() => boundsOf(flags))).toBe(code);
  });

  it('prints one JSON line, or only a predicate with --sql or --uuid-sql', async () => {
    const json = await vesta('bounds', '--date', '2026-11-27', '--gen-method', '0');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toEqual(boundsOf({ date: '2026-11-27', genMethod: '0' }));
    expect(json.out.trim().split('\n')).toHaveLength(1);
    const sql = await vesta('bounds', '--date', '2026-11-27', '--gen-method', '0', '--sql');
    expect(sql.out).toBe('id BETWEEN 64476049047552000 AND 64568820341145599\n');
    const uuidSql = await vesta('bounds', '--from', String(DAY), '--to', String(DAY), '--uuid-sql');
    expect(uuidSql.out).toBe(
      "id BETWEEN '01a21a4d-4000-7000-8000-000000000000' AND '01a21a4d-4000-7fff-bfff-ffffffffffff'\n",
    );
  });

  it('reports a bad flag on one coded line of stderr and exits 1', async () => {
    const run = await vesta('bounds', '--from', '2026-11-28', '--to', '2026-11-27');
    expect(run).toEqual({
      out: '',
      err: 'vesta bounds: INVALID_ARGUMENT: --from 2026-11-28 is after --to 2026-11-27\n',
      code: 1,
    });
    const both = await vesta('bounds', '--date', '2026-11-27', '--sql', '--uuid-sql');
    expect(both.err).toMatch(/^vesta bounds: INVALID_ARGUMENT: give --sql or --uuid-sql/);
    expect(both.code).toBe(1);
  });
});
