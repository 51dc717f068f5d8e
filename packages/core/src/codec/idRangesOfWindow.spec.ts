import { codeOf } from '@vesta/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createIdMeta, type IdFieldName, type IdMeta } from '../layout/IdMeta.js';
import { IdType } from '../layout/IdType.js';
import { LAYOUT_PRESETS, vestaLayout } from '../layout/layoutPresets.js';
import { layoutWidthsArbitrary } from '../testing/layoutWidthsArbitrary.js';
import { IdConverter } from './IdConverter.js';
import type { IdRange, TimeBoundsFilter } from './IdConverter.js';

const EPOCH = Date.UTC(2025, 0, 1);
const MAX_MS = 2 ** 48 - 1;
const both = IdConverter.standard(EPOCH);

/**
 * A layout no preset has: genMethod below time, reserved bits below and above it, a machine
 * field above it (8 values: 8 ranges), 7 ms units, and a time field that runs out in 8 minutes.
 */
const ODD_LAYOUT = createIdMeta({
  fields: [
    { name: 'genMethod', bits: 2 },
    { name: 'seq', bits: 6 },
    { name: 'reserved', bits: 2 },
    { name: 'time', bits: 16 },
    { name: 'machine', bits: 3 },
    { name: 'version', bits: 2 },
    { name: 'reserved', bits: 1 },
  ],
  unitMs: 7,
  type: 1,
});

/** The fields that stand above time in `meta`: the ones telling its ranges apart. */
const aboveTime = (meta: IdMeta, name: IdFieldName): boolean =>
  meta[name].bits > 0 && meta[name].start > meta.time.start;

const inSomeRange = (ranges: readonly IdRange[], id: bigint): boolean =>
  ranges.some((range) => range.min <= id && id <= range.max);

const converters: fc.Arbitrary<IdConverter> = fc.oneof(
  fc.constantFrom(
    ...Object.values(LAYOUT_PRESETS).map((p) => new IdConverter(p.layout, p.epochMs)),
    new IdConverter(ODD_LAYOUT, EPOCH),
    IdConverter.standard(EPOCH, IdType.MIN_GRANULARITY),
  ),
  fc
    .tuple(
      layoutWidthsArbitrary({
        machineBits: [1, 12],
        seqBits: [1, 20],
        timeBits: [1, 44],
        genMethodBits: [0, 3],
        typeBits: [0, 1],
        versionBits: [0, 2],
      }),
      fc.constantFrom(IdType.MAX_PEAK, IdType.MIN_GRANULARITY),
      fc.integer({ min: 0, max: 2 ** 41 }),
    )
    .map(([widths, type, epochMs]) => new IdConverter(vestaLayout(type, widths), epochMs)),
);

/** A window near the epoch, near the expiry, or anywhere, of a few units or many. */
function windowOf(codec: IdConverter): fc.Arbitrary<[number, number]> {
  const unit = codec.layout.unitMs;
  const clamp = (ms: number): number => Math.min(MAX_MS, Math.max(0, ms));
  const expiry = codec.epochMs + (codec.layout.time.max + 1) * unit;
  const near = (ms: number): fc.Arbitrary<number> =>
    fc.integer({ min: -3 * unit, max: 3 * unit }).map((d) => clamp(ms + d));
  const start = fc.oneof(near(codec.epochMs), near(expiry), fc.integer({ min: 0, max: MAX_MS }));
  const length = fc.oneof(
    fc.integer({ min: 0, max: 3 * unit }),
    fc.integer({ min: 0, max: MAX_MS }),
  );
  return fc.tuple(start, length).map(([from, len]) => [from, clamp(from + len)]);
}

/** Ids of `codec` whose time is near either end of the window, or anywhere. */
function idsNear(codec: IdConverter, [fromMs, toMs]: [number, number]): fc.Arbitrary<bigint> {
  const meta = codec.layout;
  const unitOf = (ms: number): number => Math.floor((ms - codec.epochMs) / meta.unitMs);
  const near = (unit: number): fc.Arbitrary<number> =>
    fc.integer({ min: -1, max: 1 }).map((d) => Math.min(meta.time.max, Math.max(0, unit + d)));
  const any = (name: 'machine' | 'seq' | 'genMethod' | 'version'): fc.Arbitrary<number> =>
    fc.integer({ min: 0, max: meta[name].max });
  return fc
    .record({
      time: fc.oneof(
        near(unitOf(fromMs)),
        near(unitOf(toMs)),
        fc.integer({ min: 0, max: meta.time.max }),
      ),
      seq: any('seq'),
      machine: any('machine'),
      genMethod: any('genMethod'),
      version: any('version'),
    })
    .map((fields) => codec.makeId(fields, { machine: 0, genMethod: 0, version: 0 }));
}

/** A filter on the fields above time only (a filter below time is refused, tested apart). */
function filterOf(codec: IdConverter): fc.Arbitrary<TimeBoundsFilter> {
  const meta = codec.layout;
  const value = (name: 'genMethod' | 'version'): fc.Arbitrary<number | undefined> =>
    aboveTime(meta, name)
      ? fc.option(fc.integer({ min: 0, max: meta[name].max }), { nil: undefined })
      : fc.constant(undefined);
  return fc
    .record({ genMethod: value('genMethod'), version: value('version') })
    .map(({ genMethod, version }) => ({
      ...(genMethod === undefined ? {} : { genMethod }),
      ...(version === undefined ? {} : { version }),
    }));
}

describe('IdConverter.timeBounds', () => {
  it('puts an id in one of the ranges exactly when its unit starts in the window and it passes the filter', () => {
    const cases = converters.chain((codec) =>
      windowOf(codec).chain((window) =>
        fc.tuple(
          fc.constant(codec),
          fc.constant(window),
          filterOf(codec),
          fc.array(idsNear(codec, window), { minLength: 1, maxLength: 20 }),
        ),
      ),
    );
    fc.assert(
      fc.property(cases, ([codec, [fromMs, toMs], only, ids]) => {
        const { ids: ranges } = codec.timeBounds(fromMs, toMs, only);
        const meta = codec.layout;
        for (const id of ids) {
          const fields = codec.expId(id);
          const start = codec.transTime(fields.time).getTime();
          const passes =
            (!aboveTime(meta, 'genMethod') ||
              only.genMethod === undefined ||
              fields.genMethod === only.genMethod) &&
            (!aboveTime(meta, 'version') || fields.version === (only.version ?? 0));
          expect(inSomeRange(ranges, id)).toBe(fromMs <= start && start <= toMs && passes);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('gives ranges in increasing order, apart, each an id of the layout at both ends and labelled with its fields above time', () => {
    fc.assert(
      fc.property(
        converters.chain((codec) => fc.tuple(fc.constant(codec), windowOf(codec))),
        ([codec, [fromMs, toMs]]) => {
          const ranges = codec.timeBounds(fromMs, toMs).ids;
          ranges.forEach((range, i) => {
            expect(range.min <= range.max).toBe(true);
            if (i > 0) expect((ranges[i - 1] as IdRange).max < range.min).toBe(true);
            const low = codec.expId(range.min);
            const high = codec.expId(range.max);
            expect([low.type, high.type]).toEqual([codec.layout.idType, codec.layout.idType]);
            for (const name of ['machine', 'seq', 'genMethod', 'type', 'version'] as const) {
              if (aboveTime(codec.layout, name)) {
                expect(range[name]).toBe(low[name]);
                expect(high[name]).toBe(low[name]);
              } else {
                expect(range[name]).toBeUndefined();
                if (name !== 'type')
                  expect([low[name], high[name]]).toEqual([0, codec.layout[name].max]);
              }
            }
            expect(codec.transTime(low.time).getTime()).toBeGreaterThanOrEqual(fromMs);
            expect(codec.transTime(high.time).getTime()).toBeLessThanOrEqual(toMs);
          });
        },
      ),
    );
  });

  it('gives the four genMethod ranges of a Vesta max-peak window, each from its first second to its last', () => {
    const from = EPOCH + 60_000;
    const { ids } = both.timeBounds(from, from + 2_999);
    const lower = (1n << 30n) - 1n;
    expect(ids).toEqual(
      [0, 1, 2, 3].map((genMethod) => ({
        min: (BigInt(genMethod) << 60n) | (60n << 30n),
        max: (BigInt(genMethod) << 60n) | (62n << 30n) | lower,
        genMethod,
        type: IdType.MAX_PEAK,
        version: 0,
      })),
    );
  });

  it('narrows to one range with a genMethod, and reads another type or version when asked', () => {
    const from = EPOCH + 5;
    expect(both.timeBounds(from, from, { genMethod: 2 }).ids).toEqual([]);
    const minGran = both.timeBounds(from, from, { genMethod: 2, type: 1, version: 1 }).ids;
    expect(minGran).toEqual([
      {
        min: (1n << 63n) | (1n << 62n) | (2n << 60n) | (5n << 20n),
        max: (1n << 63n) | (1n << 62n) | (2n << 60n) | (5n << 20n) | ((1n << 20n) - 1n),
        genMethod: 2,
        type: IdType.MIN_GRANULARITY,
        version: 1,
      },
    ]);
  });

  it("gives one range for Leaf's ids, whose time is the top field", () => {
    const leaf = new IdConverter(LAYOUT_PRESETS.leaf.layout, LAYOUT_PRESETS.leaf.epochMs);
    const from = Date.UTC(2026, 10, 27);
    const to = from + 86_400_000 - 1;
    const since = (ms: number): bigint => BigInt(ms - LAYOUT_PRESETS.leaf.epochMs);
    expect(leaf.timeBounds(from, to).ids).toEqual([
      { min: since(from) << 22n, max: (since(to) << 22n) | ((1n << 22n) - 1n) },
    ]);
  });

  it.each<[string, number, number, readonly [number, number] | undefined]>([
    ['a window of one whole second', EPOCH, EPOCH + 999, [0, 0]],
    ['a window from a second start to the next one', EPOCH + 1000, EPOCH + 2000, [1, 2]],
    ['a window starting just after a second', EPOCH + 1, EPOCH + 2000, [1, 2]],
    ['a window inside one second, after its start', EPOCH + 1, EPOCH + 999, undefined],
    ['a window of one instant on a second start', EPOCH + 7000, EPOCH + 7000, [7, 7]],
    ['a window reaching before the epoch (clamped to it)', 0, EPOCH + 1500, [0, 1]],
    ['a window wholly before the epoch', 0, EPOCH - 1, undefined],
    [
      'a window reaching past the expiry (clamped to it)',
      EPOCH + 2 ** 30 * 1000 - 1000,
      MAX_MS,
      [2 ** 30 - 1, 2 ** 30 - 1],
    ],
    ['a window wholly past the expiry', EPOCH + 2 ** 30 * 1000, MAX_MS, undefined],
  ])('gives the right units for %s', (_name, fromMs, toMs, units) => {
    const ids = both.timeBounds(fromMs, toMs, { genMethod: 0 }).ids;
    if (units === undefined) {
      expect(ids).toEqual([]);
    } else {
      expect(ids).toHaveLength(1);
      const [range] = ids as [IdRange];
      expect(both.expId(range.min).time).toBe(units[0]);
      expect(both.expId(range.max).time).toBe(units[1]);
    }
  });

  it.each<[string, () => unknown]>([
    ['a window ending before it starts', () => both.timeBounds(EPOCH + 1, EPOCH)],
    ['NaN', () => both.timeBounds(Number.NaN, EPOCH)],
    ['a negative time', () => both.timeBounds(-1, EPOCH)],
    ['a fractional time', () => both.timeBounds(EPOCH, EPOCH + 0.5)],
    ['a time past 48 bits of ms', () => both.timeBounds(EPOCH, 2 ** 48)],
    ['a string', () => both.timeBounds('0' as unknown as number, EPOCH)],
    ['a genMethod out of range', () => both.timeBounds(EPOCH, EPOCH, { genMethod: 4 })],
    ['a version out of range', () => both.timeBounds(EPOCH, EPOCH, { version: 2 })],
    ['an unknown type', () => both.timeBounds(EPOCH, EPOCH, { type: 2 as IdType })],
    [
      'a genMethod the layout has not',
      () =>
        new IdConverter(LAYOUT_PRESETS.twitter.layout, EPOCH).timeBounds(EPOCH, EPOCH, {
          genMethod: 1,
        }),
    ],
    [
      'a filter on a field below time',
      () => new IdConverter(ODD_LAYOUT, EPOCH).timeBounds(EPOCH, EPOCH, { genMethod: 1 }),
    ],
    [
      'a window of more ranges than anyone wants',
      () =>
        new IdConverter(
          createIdMeta({
            fields: [
              { name: 'seq', bits: 4 },
              { name: 'time', bits: 20 },
              { name: 'machine', bits: 13 },
            ],
            unitMs: 1,
            type: 0,
          }),
          EPOCH,
        ).timeBounds(EPOCH, EPOCH),
    ],
    [
      // 2^40 ranges: counted, never built (building them ran out of memory).
      'a window of a 40-bit field above time',
      () =>
        new IdConverter(
          createIdMeta({
            fields: [
              { name: 'seq', bits: 10 },
              { name: 'time', bits: 10 },
              { name: 'machine', bits: 40 },
            ],
            unitMs: 1000,
            type: 0,
          }),
          EPOCH,
        ).timeBounds(EPOCH, EPOCH),
    ],
  ])('refuses %s with INVALID_ARGUMENT', (_name, call) => {
    expect(codeOf(call)).toBe('INVALID_ARGUMENT');
  });
});
