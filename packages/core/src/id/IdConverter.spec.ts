import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createIdMeta, type IdLayoutWidths, type IdMeta } from '../layout/IdMeta.js';
import { IdType } from '../layout/IdType.js';
import { MAX_PEAK_META, MIN_GRANULARITY_META } from '../layout/standardLayouts.js';
import type { Id } from './Id.js';
import { IdConverter } from './IdConverter.js';
import { caught } from '../testing/caught.js';

const FIELDS = ['machine', 'seq', 'time', 'genMethod', 'type', 'version'] as const;
type FieldName = (typeof FIELDS)[number];

const both = new IdConverter(
  new Map<IdType, IdMeta>([
    [IdType.MAX_PEAK, MAX_PEAK_META],
    [IdType.MIN_GRANULARITY, MIN_GRANULARITY_META],
  ]),
);

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

const widths: fc.Arbitrary<IdLayoutWidths> = fc
  .record({
    machineBits: fc.integer({ min: 1, max: 16 }),
    seqBits: fc.integer({ min: 1, max: 24 }),
    timeBits: fc.integer({ min: 1, max: 48 }),
    genMethodBits: fc.integer({ min: 0, max: 4 }),
    typeBits: fc.integer({ min: 0, max: 1 }),
    versionBits: fc.integer({ min: 0, max: 4 }),
  })
  .filter(
    (w) =>
      w.machineBits + w.seqBits + w.timeBits + w.genMethodBits + w.typeBits + w.versionBits <= 64,
  );

describe('IdConverter', () => {
  it.each([
    ['max-peak', IdType.MAX_PEAK, MAX_PEAK_META],
    ['min-granularity', IdType.MIN_GRANULARITY, MIN_GRANULARITY_META],
  ] as const)('round-trips every field of a %s id', (_name, type, meta) => {
    fc.assert(
      fc.property(fieldsOf(meta, type), (fields) => {
        const id = both.convert(fields);
        expect(id).toBe(oracle(meta, fields));
        expect(both.parse(id)).toEqual(fields);
        expect(both.parse(id.toString())).toEqual(fields);
      }),
    );
  });

  it('decodes every 64-bit value and encodes it back to itself', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (id) => {
        expect(both.convert(both.parse(id))).toBe(id);
      }),
    );
  });

  it('round-trips every field of custom layouts', () => {
    fc.assert(
      fc.property(
        widths.chain((w) => {
          const meta = createIdMeta(w);
          return fc.tuple(fc.constant(meta), fieldsOf(meta, IdType.MAX_PEAK));
        }),
        ([meta, fields]) => {
          const converter = new IdConverter(new Map([[IdType.MAX_PEAK, meta]]));
          const id = converter.convert(fields);
          expect(id).toBe(oracle(meta, fields));
          expect(id < 1n << BigInt(meta.totalBits)).toBe(true);
          expect(converter.parse(id)).toEqual(fields);
        },
      ),
    );
  });

  it('keeps the type of a layout without a type bit, for either type', () => {
    const meta = createIdMeta({ ...MIN_GRANULARITY_META.widths, typeBits: 0 });
    const converter = new IdConverter(new Map([[IdType.MIN_GRANULARITY, meta]]));
    const fields: Id = {
      machine: 3,
      seq: 2,
      time: 1,
      genMethod: 0,
      type: IdType.MIN_GRANULARITY,
      version: 0,
    };
    const id = converter.convert(fields);
    expect(id).toBe((1n << 20n) | (2n << 10n) | 3n);
    expect(converter.parse(id)).toEqual(fields);
  });

  const boundaries = FIELDS.filter((name) => name !== 'type').flatMap((name) =>
    [
      ['max-peak', IdType.MAX_PEAK, MAX_PEAK_META],
      ['min-granularity', IdType.MIN_GRANULARITY, MIN_GRANULARITY_META],
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
      const id = both.convert(fields);
      const typeBit = BigInt(type) << 62n;
      expect(id ^ typeBit).toBe(BigInt(value) << BigInt(meta[name].start));
      expect(both.parse(id)).toEqual(fields);
    },
  );

  it.each([
    ['max-peak', IdType.MAX_PEAK, MAX_PEAK_META],
    ['min-granularity', IdType.MIN_GRANULARITY, MIN_GRANULARITY_META],
  ] as const)('%s: sets all 64 bits with every field at its maximum', (_name, type, meta) => {
    const fields: Id = {
      machine: meta.machine.max,
      seq: meta.seq.max,
      time: meta.time.max,
      genMethod: meta.genMethod.max,
      type,
      version: meta.version.max,
    };
    const id = both.convert(fields);
    expect(id).toBe(
      type === IdType.MIN_GRANULARITY ? (1n << 64n) - 1n : ((1n << 64n) - 1n) ^ (1n << 62n),
    );
    expect(both.parse(id)).toEqual(fields);
  });

  const overflows = (['machine', 'seq', 'time', 'genMethod', 'version'] as const).flatMap((name) =>
    [
      [IdType.MAX_PEAK, MAX_PEAK_META],
      [IdType.MIN_GRANULARITY, MIN_GRANULARITY_META],
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
      const error = caught(() => both.convert(fields));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.details).toMatchObject({ field: name, value });
    },
  );

  it('rejects any oversized field of a custom layout, never returning an id', () => {
    fc.assert(
      fc.property(
        widths.chain((w) => {
          const meta = createIdMeta(w);
          return fc.tuple(
            fc.constant(meta),
            fieldsOf(meta, IdType.MAX_PEAK),
            fc.constantFrom<FieldName>('machine', 'seq', 'time', 'genMethod', 'version'),
            fc.integer({ min: 1, max: 2 ** 20 }),
          );
        }),
        ([meta, fields, name, excess]) => {
          const converter = new IdConverter(new Map([[IdType.MAX_PEAK, meta]]));
          const bad = { ...fields, [name]: meta[name].max + excess };
          expect(caught(() => converter.convert(bad)).code).toBe('INVALID_ARGUMENT');
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
    expect(caught(() => both.convert(fields)).code).toBe('INVALID_ARGUMENT');
  });

  it('reads the type of an id from its type bit', () => {
    const maxPeak = both.convert({
      machine: 5,
      seq: 6,
      time: 7,
      genMethod: 1,
      type: IdType.MAX_PEAK,
      version: 0,
    });
    const minGran = both.convert({
      machine: 5,
      seq: 6,
      time: 7,
      genMethod: 2,
      type: IdType.MIN_GRANULARITY,
      version: 1,
    });
    expect(both.typeOf(maxPeak)).toBe(IdType.MAX_PEAK);
    expect(both.typeOf(minGran)).toBe(IdType.MIN_GRANULARITY);
    expect(both.parse(minGran)).toEqual({
      machine: 5,
      seq: 6,
      time: 7,
      genMethod: 2,
      type: IdType.MIN_GRANULARITY,
      version: 1,
    });
  });

  it('refuses an id of a type it has no layout for', () => {
    const only = new IdConverter(new Map([[IdType.MAX_PEAK, MAX_PEAK_META]]));
    expect(caught(() => only.parse(1n << 62n)).code).toBe('INVALID_ARGUMENT');
  });

  it('refuses an id with bits set above a narrower layout', () => {
    const meta = createIdMeta({
      machineBits: 4,
      seqBits: 4,
      timeBits: 8,
      genMethodBits: 0,
      typeBits: 0,
      versionBits: 0,
    });
    const converter = new IdConverter(new Map([[IdType.MAX_PEAK, meta]]));
    expect(converter.parse((1n << 16n) - 1n).time).toBe(255);
    expect(caught(() => converter.parse(1n << 16n)).code).toBe('INVALID_ARGUMENT');
  });

  it('refuses layouts that keep the type bit in different places', () => {
    const shifted = createIdMeta({ ...MAX_PEAK_META.widths, machineBits: 9 });
    const error = caught(
      () =>
        new IdConverter(
          new Map<IdType, IdMeta>([
            [IdType.MAX_PEAK, MAX_PEAK_META],
            [IdType.MIN_GRANULARITY, shifted],
          ]),
        ),
    );
    expect(error.code).toBe('INVALID_LAYOUT');
    expect(caught(() => new IdConverter(new Map())).code).toBe('INVALID_LAYOUT');
  });
});
