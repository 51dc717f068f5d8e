import { describe, expect, it } from 'vitest';
import {
  createIdMeta,
  MAX_FIELD_BITS,
  vestaLayoutSpec,
  type IdMeta,
  type IdMetaFieldSpec,
  type IdMetaSpec,
  type IdMetaWidths,
} from './IdMeta.js';
import { MAX_PEAK_LAYOUT, MIN_GRANULARITY_LAYOUT, standardLayout } from './layoutPresets.js';
import { IdType } from './IdType.js';
import { twitterShapedLayout } from '../testing/twitterShapedLayout.js';
import { codeOf } from '@vesta/testkit';

const STANDARD: IdMetaWidths = MAX_PEAK_LAYOUT.widths;

/** A max-peak layout of these widths in Vesta's order (the `layout` option's shape). */
const metaOfWidths = (w: IdMetaWidths): IdMeta => createIdMeta(vestaLayoutSpec(w, 0, 1000));

describe('createIdMeta', () => {
  it.each([
    [
      'max-peak',
      MAX_PEAK_LAYOUT,
      {
        machine: [0, 10],
        seq: [10, 20],
        time: [30, 30],
        genMethod: [60, 2],
        type: [62, 1],
        version: [63, 1],
      },
    ],
    [
      'min-granularity',
      MIN_GRANULARITY_LAYOUT,
      {
        machine: [0, 10],
        seq: [10, 10],
        time: [20, 40],
        genMethod: [60, 2],
        type: [62, 1],
        version: [63, 1],
      },
    ],
  ] as const)(
    'places the fields of the %s layout from the lowest bit up',
    (_name, meta, expected) => {
      for (const [name, [start, bits]] of Object.entries(expected)) {
        const field = meta[name as keyof typeof expected];
        expect({ name, start: field.start, bits: field.bits }).toEqual({ name, start, bits });
        expect(field.max).toBe(2 ** bits - 1);
        expect(field.maxBig).toBe((1n << BigInt(bits)) - 1n);
        expect(field.startBig).toBe(BigInt(start));
      }
      expect(meta.totalBits).toBe(64);
    },
  );

  it('gives each type its standard layout', () => {
    expect(standardLayout(IdType.MAX_PEAK)).toBe(MAX_PEAK_LAYOUT);
    expect(standardLayout(IdType.MIN_GRANULARITY)).toBe(MIN_GRANULARITY_LAYOUT);
  });

  it('accepts a narrower layout and leaves the upper bits unused', () => {
    const meta = metaOfWidths({
      machineBits: 4,
      seqBits: 6,
      timeBits: 20,
      genMethodBits: 0,
      typeBits: 0,
      versionBits: 0,
    });
    expect(meta.totalBits).toBe(30);
    expect(meta.time.start).toBe(10);
    expect(meta.genMethod).toMatchObject({ bits: 0, start: 30, max: 0 });
  });

  it('freezes the layout it returns', () => {
    const meta = metaOfWidths(STANDARD);
    expect(Object.isFrozen(meta)).toBe(true);
    expect(Object.isFrozen(meta.seq)).toBe(true);
    expect(Object.isFrozen(meta.widths)).toBe(true);
  });

  it.each<[string, Partial<IdMetaWidths>]>([
    ['a machine field of 0 bits', { machineBits: 0 }],
    ['a sequence field of 0 bits', { seqBits: 0 }],
    ['a time field of 0 bits', { timeBits: 0 }],
    ['a type field of 2 bits', { typeBits: 2 }],
    ['a negative width', { genMethodBits: -1 }],
    ['a fractional width', { seqBits: 19.5 }],
    ['a width given as a string', { seqBits: '20' as unknown as number }],
    ['a NaN width', { versionBits: Number.NaN }],
    [
      `a field wider than ${MAX_FIELD_BITS} bits`,
      { machineBits: 0, seqBits: 1, timeBits: MAX_FIELD_BITS + 1 },
    ],
    ['65 bits in all', { timeBits: 31 }],
    ['far more than 64 bits', { machineBits: 40, seqBits: 40, timeBits: 40 }],
  ])('rejects %s with INVALID_LAYOUT', (_name, change) => {
    expect(codeOf(() => metaOfWidths({ ...STANDARD, ...change }))).toBe('INVALID_LAYOUT');
  });

  it('places fields in any order given as data, with reserved bits (a Twitter-shaped layout)', () => {
    const twitter = twitterShapedLayout();
    expect([twitter.seq.start, twitter.machine.start, twitter.time.start]).toEqual([0, 12, 22]);
    expect(twitter.genMethod.bits).toBe(0);
    expect(twitter.totalBits).toBe(64);
    expect(twitter.vestaOrder).toBe(false);
    expect(MAX_PEAK_LAYOUT.vestaOrder).toBe(true);
  });

  it.each<[string, IdMetaSpec]>([
    [
      'a field twice',
      { fields: [...spec(10, 20, 30), { name: 'seq', bits: 1 }], unitMs: 1, type: 0 },
    ],
    [
      'no time field',
      { fields: spec(10, 20, 30).filter((f) => f.name !== 'time'), unitMs: 1, type: 0 },
    ],
    [
      'an unknown field',
      { fields: [...spec(10, 20, 30), { name: 'shard' as 'seq', bits: 1 }], unitMs: 1, type: 0 },
    ],
    ['a time unit of 0 ms', { fields: spec(10, 20, 30), unitMs: 0, type: 0 }],
    [
      'a reserved field of 0 bits',
      { fields: [...spec(10, 20, 30), { name: 'reserved', bits: 0 }], unitMs: 1, type: 0 },
    ],
    ['a type other than 0 or 1', { fields: spec(10, 20, 30), unitMs: 1, type: 2 as 0 }],
  ])('rejects a layout spec with %s (INVALID_LAYOUT)', (_name, bad) => {
    expect(codeOf(() => createIdMeta(bad))).toBe('INVALID_LAYOUT');
  });
});

/** machine | seq | time fields of these widths, from the lowest bit. */
function spec(machine: number, seq: number, time: number): IdMetaFieldSpec[] {
  return [
    { name: 'machine', bits: machine },
    { name: 'seq', bits: seq },
    { name: 'time', bits: time },
  ];
}
