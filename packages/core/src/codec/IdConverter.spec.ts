import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { IdMeta, IdMetaWidths } from '../layout/IdMeta.js';
import { IdType } from '../layout/IdType.js';
import { MAX_PEAK_LAYOUT, MIN_GRANULARITY_LAYOUT, vestaLayout } from '../layout/layoutPresets.js';
import type { Id } from './IdConverter.js';
import { IdConverter } from './IdConverter.js';
import { layoutWidthsArbitrary } from '../testing/layoutWidthsArbitrary.js';
import { twitterShapedLayout } from '../testing/twitterShapedLayout.js';
import { caught } from '@vesta/testkit';

const FIELDS = ['machine', 'seq', 'time', 'genMethod', 'type', 'version'] as const;
type FieldName = (typeof FIELDS)[number];

const EPOCH = Date.UTC(2025, 0, 1);
const both = IdConverter.standard(EPOCH);

/** A max-peak layout of the given widths, in Vesta's order. */
const widthsLayout = (w: IdMetaWidths): IdMeta => vestaLayout(IdType.MAX_PEAK, w);
/** A codec of one layout. */
const codecOf = (layout: IdMeta): IdConverter => new IdConverter(layout, EPOCH);

/** The id of `fields` in `meta`, computed independently of the converter. */
function oracle(meta: IdMeta, id: Id): bigint {
  return FIELDS.reduce((out, name) => out | (BigInt(id[name]) << BigInt(meta[name].start)), 0n);
}

function fieldsOf(meta: IdMeta, type: IdType): fc.Arbitrary<Id> {
  return fc.record({
    machine: fc.integer({ min: 0, max: meta.machine.max }),
    seq: fc.integer({ min: 0, max: meta.seq.max }),
    time: fc.integer({ min: 0, max: meta.time.max }),
    genMethod: fc.integer({ min: 0, max: meta.genMethod.max }),
    type: fc.constant(type),
    version: fc.integer({ min: 0, max: meta.version.max }),
  });
}

const widths = layoutWidthsArbitrary({
  machineBits: [1, 16],
  seqBits: [1, 24],
  timeBits: [1, 48],
  genMethodBits: [0, 4],
  typeBits: [0, 1],
  versionBits: [0, 4],
});

describe('IdConverter', () => {
  it.each([
    ['max-peak', IdType.MAX_PEAK, MAX_PEAK_LAYOUT],
    ['min-granularity', IdType.MIN_GRANULARITY, MIN_GRANULARITY_LAYOUT],
  ] as const)('round-trips every field of a %s id', (_name, type, meta) => {
    fc.assert(
      fc.property(fieldsOf(meta, type), (fields) => {
        const id = both.encode(fields);
        expect(id).toBe(oracle(meta, fields));
        expect(both.expId(id)).toEqual(fields);
        expect(both.expId(id.toString())).toEqual(fields);
      }),
    );
  });

  it('decodes every 64-bit value and encodes it back to itself', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (id) => {
        expect(both.encode(both.expId(id))).toBe(id);
      }),
    );
  });

  it('round-trips every field of custom layouts', () => {
    fc.assert(
      fc.property(
        widths.chain((w) => {
          const meta = widthsLayout(w);
          return fc.tuple(fc.constant(meta), fieldsOf(meta, IdType.MAX_PEAK));
        }),
        ([meta, fields]) => {
          const converter = codecOf(meta);
          const id = converter.encode(fields);
          expect(id).toBe(oracle(meta, fields));
          expect(id < 1n << BigInt(meta.totalBits)).toBe(true);
          expect(converter.expId(id)).toEqual(fields);
        },
      ),
    );
  });

  it('keeps the type of a layout without a type bit, for either type', () => {
    const meta = vestaLayout(IdType.MIN_GRANULARITY, { typeBits: 0 });
    const converter = codecOf(meta);
    const fields: Id = {
      machine: 3,
      seq: 2,
      time: 1,
      genMethod: 0,
      type: IdType.MIN_GRANULARITY,
      version: 0,
    };
    const id = converter.encode(fields);
    expect(id).toBe((1n << 20n) | (2n << 10n) | 3n);
    expect(converter.expId(id)).toEqual(fields);
  });

  const boundaries = FIELDS.filter((name) => name !== 'type').flatMap((name) =>
    [
      ['max-peak', IdType.MAX_PEAK, MAX_PEAK_LAYOUT],
      ['min-granularity', IdType.MIN_GRANULARITY, MIN_GRANULARITY_LAYOUT],
    ].flatMap(([typeName, type, meta]) => {
      const m = meta as IdMeta;
      return [
        [typeName as string, name, 0, type as IdType, m],
        [typeName as string, name, m[name].max, type as IdType, m],
      ] as const;
    }),
  );

  it.each(boundaries)(
    '%s: encodes %s = %i alone in its own bits',
    (_typeName, name, value, type, meta) => {
      const fields: Id = {
        machine: 0,
        seq: 0,
        time: 0,
        genMethod: 0,
        type,
        version: 0,
        [name]: value,
      };
      const id = both.encode(fields);
      const typeBit = BigInt(type) << 62n;
      expect(id ^ typeBit).toBe(BigInt(value) << BigInt(meta[name].start));
      expect(both.expId(id)).toEqual(fields);
    },
  );

  it.each([
    ['max-peak', IdType.MAX_PEAK, MAX_PEAK_LAYOUT],
    ['min-granularity', IdType.MIN_GRANULARITY, MIN_GRANULARITY_LAYOUT],
  ] as const)('%s: sets all 64 bits with every field at its maximum', (_name, type, meta) => {
    const fields: Id = {
      machine: meta.machine.max,
      seq: meta.seq.max,
      time: meta.time.max,
      genMethod: meta.genMethod.max,
      type,
      version: meta.version.max,
    };
    const id = both.encode(fields);
    expect(id).toBe(
      type === IdType.MIN_GRANULARITY ? (1n << 64n) - 1n : ((1n << 64n) - 1n) ^ (1n << 62n),
    );
    expect(both.expId(id)).toEqual(fields);
  });

  const overflows = (['machine', 'seq', 'time', 'genMethod', 'version'] as const).flatMap((name) =>
    [
      [IdType.MAX_PEAK, MAX_PEAK_LAYOUT],
      [IdType.MIN_GRANULARITY, MIN_GRANULARITY_LAYOUT],
    ].map(([type, meta]) => [name, (meta as IdMeta)[name].max + 1, type as IdType] as const),
  );

  it.each(overflows)(
    'rejects %s = %i (one past its maximum, type %i) instead of spilling into the next field',
    (name, value, type) => {
      const fields: Id = {
        machine: 1,
        seq: 1,
        time: 1,
        genMethod: 0,
        type,
        version: 0,
        [name]: value,
      };
      const error = caught(() => both.encode(fields));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.details).toMatchObject({ field: name, value });
    },
  );

  it('rejects any oversized field of a custom layout, never returning an id', () => {
    fc.assert(
      fc.property(
        widths.chain((w) => {
          const meta = widthsLayout(w);
          return fc.tuple(
            fc.constant(meta),
            fieldsOf(meta, IdType.MAX_PEAK),
            fc.constantFrom<FieldName>('machine', 'seq', 'time', 'genMethod', 'version'),
            fc.integer({ min: 1, max: 2 ** 20 }),
          );
        }),
        ([meta, fields, name, excess]) => {
          const converter = codecOf(meta);
          const bad = { ...fields, [name]: meta[name].max + excess };
          expect(caught(() => converter.encode(bad)).code).toBe('INVALID_ARGUMENT');
        },
      ),
    );
  });

  it.each<[string, unknown]>([
    ['negative', -1],
    ['fractional', 1.5],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a string', '1'],
    ['a bigint', 1n],
    ['undefined', undefined],
  ])('rejects a %s field with INVALID_ARGUMENT', (_name, value) => {
    const fields = {
      machine: 1,
      seq: value,
      time: 1,
      genMethod: 0,
      type: IdType.MAX_PEAK,
      version: 0,
    } as unknown as Id;
    expect(caught(() => both.encode(fields)).code).toBe('INVALID_ARGUMENT');
  });

  it('reads the type of an id from its type bit', () => {
    const maxPeak = both.encode({
      machine: 5,
      seq: 6,
      time: 7,
      genMethod: 1,
      type: IdType.MAX_PEAK,
      version: 0,
    });
    const minGranFields: Id = {
      machine: 5,
      seq: 6,
      time: 7,
      genMethod: 2,
      type: IdType.MIN_GRANULARITY,
      version: 1,
    };
    const minGran = both.encode(minGranFields);
    expect(both.typeOf(maxPeak)).toBe(IdType.MAX_PEAK);
    expect(both.typeOf(minGran)).toBe(IdType.MIN_GRANULARITY);
    expect(both.expId(minGran)).toEqual(minGranFields);
  });

  it('refuses an id of a type it has no layout for (the other type bit stands elsewhere)', () => {
    const shifted = codecOf(widthsLayout({ ...MAX_PEAK_LAYOUT.widths, machineBits: 9 }));
    expect(shifted.typeOf(1n << 61n)).toBe(IdType.MIN_GRANULARITY);
    expect(caught(() => shifted.expId(1n << 61n)).code).toBe('INVALID_ARGUMENT');
    expect(both.expId(1n << 62n).type).toBe(IdType.MIN_GRANULARITY);
  });

  it('refuses an id with bits set above a narrower layout', () => {
    const meta = widthsLayout({
      machineBits: 4,
      seqBits: 4,
      timeBits: 8,
      genMethodBits: 0,
      typeBits: 0,
      versionBits: 0,
    });
    const converter = codecOf(meta);
    expect(converter.expId((1n << 16n) - 1n).time).toBe(255);
    expect(caught(() => converter.expId(1n << 16n)).code).toBe('INVALID_ARGUMENT');
  });

  it('fills makeId fields from the issuer and dates time fields in each type unit', () => {
    const issuer = { machine: 7, genMethod: 2, version: 0 };
    expect(both.expId(both.makeId({ time: 3, seq: 4 }, issuer))).toEqual({
      machine: 7,
      seq: 4,
      time: 3,
      genMethod: 2,
      type: IdType.MAX_PEAK,
      version: 0,
    });
    expect(both.transTime(3).getTime()).toBe(EPOCH + 3000);
    expect(both.transTime(3, IdType.MIN_GRANULARITY).getTime()).toBe(EPOCH + 3);
    expect(caught(() => both.transTime(2 ** 30)).code).toBe('INVALID_ARGUMENT');
    expect(caught(() => both.makeId(null as never, issuer)).code).toBe('INVALID_ARGUMENT');
    expect(both.info()).toMatchObject({
      type: 0,
      typeName: 'max-peak',
      epochMs: EPOCH,
      unitMs: 1000,
      expiry: new Date(EPOCH + 2 ** 30 * 1000).toISOString(),
      layout: MAX_PEAK_LAYOUT.widths,
    });
  });

  it('encodes and decodes a layout whose field order is data, and refuses its reserved bits', () => {
    const twitter = codecOf(twitterShapedLayout());
    const fields: Id = { machine: 1, seq: 2, time: 3, genMethod: 0, type: 1, version: 0 };
    const id = twitter.encode(fields);
    expect(id).toBe((3n << 22n) | (1n << 12n) | 2n);
    expect(twitter.expId(id)).toEqual(fields);
    expect(caught(() => twitter.expId(id | (1n << 63n))).code).toBe('INVALID_ARGUMENT');
    expect(twitter.transTime(3).getTime()).toBe(EPOCH + 3);
  });
});
