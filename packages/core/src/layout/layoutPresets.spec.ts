import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codeOf, issuableInstant, ORIGINAL_ID_FORMULAS } from '@vesta/testkit';
import { IdConverter } from '../codec/IdConverter.js';
import {
  isLayoutPresetName,
  LAYOUT_PRESETS,
  layoutPreset,
  uidGeneratorLayout,
  type LayoutPresetName,
  MAX_PEAK_LAYOUT,
  resolveLayoutOption,
} from './layoutPresets.js';
import { machineIdRanges } from './machineRanges.js';

function codecOf(name: LayoutPresetName): IdConverter {
  const preset = layoutPreset(name);
  return new IdConverter(preset.layout, preset.epochMs);
}

describe('layout presets', () => {
  it.each(
    Object.entries(ORIGINAL_ID_FORMULAS) as [
      keyof typeof ORIGINAL_ID_FORMULAS,
      (ms: number, m: number, s: number) => bigint,
    ][],
  )(
    'encodes %s ids bit for bit as the original formula does, and decodes them back',
    (name, original) => {
      const NOW_MS = issuableInstant(name);
      const codec = codecOf(name);
      const { layout } = codec;
      const time = Math.floor((NOW_MS - codec.epochMs) / layout.unitMs);
      for (const [machine, seq] of [
        [0, 0],
        [1, 7],
        [layout.machine.max, layout.seq.max],
      ] as const) {
        const id = original(NOW_MS, machine, seq);
        expect(codec.makeId({ time, seq }, { machine, genMethod: 0, version: 0 })).toBe(id);
        expect(codec.expId(id)).toMatchObject({ machine, seq, time, genMethod: 0, version: 0 });
        expect(codec.transTime(time).getTime()).toBe(
          NOW_MS - ((NOW_MS - codec.epochMs) % layout.unitMs),
        );
      }
    },
  );

  it("decodes Discord's documented example 175928847299117063", () => {
    // discord.com/developers/docs/reference#snowflakes: 41944705796 ms since 2015, worker 1,
    // process 0, increment 7.
    const codec = codecOf('discord');
    const fields = codec.expId('175928847299117063');
    expect(fields).toMatchObject({ time: 41944705796, seq: 7 });
    expect(fields.machine >> 5).toBe(1); // worker
    expect(fields.machine & 31).toBe(0); // process
    expect(codec.transTime(fields.time).toISOString()).toBe('2016-04-30T11:18:25.796Z');
  });

  it("reads a Snowflake id's time as (id >> 22) + 1288834974657 (twitter, leaf)", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 63n) - 1n }), (id) => {
        for (const name of ['twitter', 'leaf'] as const) {
          const codec = codecOf(name);
          const fields = codec.expId(id);
          expect(codec.transTime(fields.time).getTime()).toBe(Number((id >> 22n) + 1288834974657n));
          expect(fields.machine).toBe(Number((id >> 12n) & 1023n));
          expect(fields.seq).toBe(Number(id & 4095n));
        }
      }),
    );
  });

  it.each(Object.keys(LAYOUT_PRESETS) as LayoutPresetName[])(
    'round-trips any fields of %s',
    (name) => {
      const codec = codecOf(name);
      const { layout } = codec;
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: layout.machine.max }),
          fc.integer({ min: 0, max: layout.seq.max }),
          fc.integer({ min: 0, max: Math.min(layout.time.max, Number.MAX_SAFE_INTEGER) }),
          (machine, seq, time) => {
            const id = codec.makeId({ time, seq }, { machine, genMethod: 0, version: 0 });
            expect(id < 1n << BigInt(layout.totalBits)).toBe(true);
            expect(codec.expId(id)).toMatchObject({ machine, seq, time });
          },
        ),
      );
    },
  );

  it('keeps every js-safe id below 2^53 and refuses to decode one at or above it', () => {
    const codec = codecOf('js-safe');
    expect(codec.layout.totalBits).toBe(53);
    const { machine, seq, time } = codec.layout;
    const largest = codec.makeId(
      { time: time.max, seq: seq.max },
      { machine: machine.max, genMethod: 0, version: 0 },
    );
    expect(largest).toBe(2n ** 53n - 1n);
    expect(codeOf(() => codec.expId(2n ** 53n))).toBe('INVALID_ARGUMENT');
    expect(codec.expiry.toISOString()).toBe('2093-01-19T03:14:08.000Z');
  });

  it("dates the expiry of uid-generator's default widths as the original's (2024-11-20)", () => {
    expect(codecOf('uid-generator').expiry.toISOString()).toBe(
      new Date((1463673600 + 2 ** 28) * 1000).toISOString(),
    );
  });

  it('has the vesta presets be the standard layouts, named', () => {
    expect(LAYOUT_PRESETS['vesta-max-peak'].layout).toBe(MAX_PEAK_LAYOUT);
    expect(codecOf('twitter').info()).toMatchObject({ preset: 'twitter', unitMs: 1 });
    expect(
      new IdConverter(uidGeneratorLayout({ timeBits: 29, workerBits: 21 }), 0).info().preset,
    ).toBe('custom');
  });

  it("takes uid-generator's widths as the original does, and refuses a sum other than 63", () => {
    const layout = uidGeneratorLayout({ timeBits: 29, workerBits: 21, seqBits: 13 });
    expect([layout.seq.start, layout.machine.start, layout.time.start]).toEqual([0, 13, 34]);
    expect(layout.totalBits).toBe(64);
    expect(codeOf(() => uidGeneratorLayout({ timeBits: 30 }))).toBe('INVALID_LAYOUT');
  });

  it('refuses an unknown preset and a spec that borrows a preset name with INVALID_LAYOUT', () => {
    expect(isLayoutPresetName('snowflake')).toBe(false);
    expect(codeOf(() => layoutPreset('snowflake'))).toBe('INVALID_LAYOUT');
    expect(
      codeOf(() =>
        resolveLayoutOption({ ...LAYOUT_PRESETS.twitter.layout.spec, name: 'discord' }, undefined),
      ),
    ).toBe('INVALID_LAYOUT');
  });

  it('takes the epoch of the preset, and refuses a type that contradicts it', () => {
    expect(resolveLayoutOption('nacos', undefined).defaultEpochMs).toBe(1533429240000);
    expect(resolveLayoutOption(LAYOUT_PRESETS.leaf.layout.spec, 1).layout.name).toBe('leaf');
    expect(codeOf(() => resolveLayoutOption('twitter', 0))).toBe('INVALID_OPTIONS');
  });

  it.each<[string, number, number, number]>([
    ['vesta (a genMethod field)', 10, 923, 924],
    ['10 machine bits, no genMethod', 10, 921, 922],
    ['sonyflake: 16 bits', 16, 58_982, 58_983],
    ['js-safe: 8 bits', 8, 230, 231],
    ['1 bit', 1, 0, 1],
  ])('splits the machine field between embedded and servers (%s)', (name, bits, last, first) => {
    const ranges = machineIdRanges({
      machineBits: bits,
      genMethodBits: name.startsWith('vesta') ? 2 : 0,
    });
    expect(ranges.embedded).toEqual({ min: 0, max: last });
    expect(ranges.server).toEqual({
      min: first,
      max: name.startsWith('vesta') ? 1023 : 2 ** bits - 1,
    });
  });
});
