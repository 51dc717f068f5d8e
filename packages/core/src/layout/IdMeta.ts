import { VestaError } from '../errors/VestaError.js';
import type { IdType } from './IdType.js';

/** The fields an id may carry: `machine`, `seq` and `time` always, the others where present. */
export type IdFieldName = 'machine' | 'seq' | 'time' | 'genMethod' | 'type' | 'version';

/** One field of a layout as data; `reserved` bits are always 0 (Twitter's sign bit). */
export interface IdMetaFieldSpec {
  readonly name: IdFieldName | 'reserved';
  readonly bits: number;
}

/**
 * A layout as data: the fields from the lowest bit up, the time unit, and the type.
 * @example
 * // Twitter's: sign 0 | 41-bit ms | 10-bit worker | 12-bit sequence, from the highest bit
 * const spec: IdMetaSpec = { fields: [{ name: 'seq', bits: 12 }, { name: 'machine', bits: 10 },
 *   { name: 'time', bits: 41 }, { name: 'reserved', bits: 1 }], unitMs: 1, type: 1 };
 */
export interface IdMetaSpec {
  readonly fields: readonly IdMetaFieldSpec[];
  /** Milliseconds in one time unit: 1000 (seconds), 10 (sonyflake), 1 (milliseconds). */
  readonly unitMs: number;
  readonly type: IdType;
  /** The preset this layout is (see `LAYOUT_PRESETS`), not part of its identity. @default a custom layout */
  readonly name?: string;
}

/**
 * The widths of a layout in Vesta's field order, from the lowest bit up:
 *
 * ```text
 *  63        62     61-60       59 ........... 30 29 ........ 10 9 ...... 0
 * +---------+------+-----------+-----------------+---------------+---------+
 * | version | type | genMethod |      time       |   sequence    | machine |   max-peak (type 0)
 * +---------+------+-----------+-----------------+---------------+---------+
 *      1       1         2             30               20            10
 * ```
 * min-granularity (type 1) has 40 bits of time (bits 20-59) and 10 of sequence (bits 10-19).
 * A field of 0 bits is absent.
 */
export interface IdMetaWidths {
  /** Bits of the machine id. @default 10 */
  readonly machineBits: number;
  /** Bits of the sequence within one time unit. 20 (max-peak) or 10 (min-granularity). */
  readonly seqBits: number;
  /** Bits of the time since the epoch. 30 (seconds, max-peak) or 40 (milliseconds, min-granularity). */
  readonly timeBits: number;
  /** Bits of the generation method (0 embedded, 1 central server, 2 REST). @default 2 */
  readonly genMethodBits: number;
  /** Bits of the type: 1, or 0 for a layout whose ids do not say their type. @default 1 */
  readonly typeBits: number;
  /** Bits of the version. @default 1 */
  readonly versionBits: number;
}

/** One field of a validated layout: where it starts, how wide it is, its largest value. */
export interface IdField {
  readonly bits: number;
  readonly start: number;
  readonly max: number;
  readonly startBig: bigint;
  readonly maxBig: bigint;
}

/** A validated layout: each field's position and limits. Build one with {@link createIdMeta}. */
export interface IdMeta {
  readonly spec: IdMetaSpec;
  readonly machine: IdField;
  readonly seq: IdField;
  readonly time: IdField;
  /** 0 bits when the layout has no such field (likewise type and version). */
  readonly genMethod: IdField;
  readonly type: IdField;
  readonly version: IdField;
  readonly unitMs: number;
  readonly idType: IdType;
  readonly widths: IdMetaWidths;
  /** Whether the fields stand in Vesta's order (machine, seq, time, genMethod, type, version). */
  readonly vestaOrder: boolean;
  readonly totalBits: number;
  /** The preset this layout is, or undefined for a custom one. */
  readonly name: string | undefined;
}

/** No field may be wider, so that every field's value is an exact JavaScript number. */
export const MAX_FIELD_BITS = 48;

const WIDTH_KEYS: Record<IdFieldName, keyof IdMetaWidths> = {
  machine: 'machineBits',
  seq: 'seqBits',
  time: 'timeBits',
  genMethod: 'genMethodBits',
  type: 'typeBits',
  version: 'versionBits',
};

/** Vesta's field order, from the lowest bit up. */
export const VESTA_FIELD_ORDER = Object.freeze(Object.keys(WIDTH_KEYS)) as readonly IdFieldName[];

export const ID_META_WIDTH_KEYS: readonly (keyof IdMetaWidths)[] = Object.freeze(
  VESTA_FIELD_ORDER.map((name) => WIDTH_KEYS[name]),
);

const REQUIRED: ReadonlySet<IdFieldName> = new Set(['machine', 'seq', 'time']);

function invalid(message: string, details?: Record<string, unknown>): VestaError {
  return new VestaError('INVALID_LAYOUT', message, { details });
}

function field(bits: number, start: number): IdField {
  return Object.freeze({
    bits,
    start,
    max: 2 ** bits - 1,
    startBig: BigInt(start),
    maxBig: (1n << BigInt(bits)) - 1n,
  });
}

/** The bits the named fields of a layout take. */
export function fieldsMask(meta: IdMeta, names: readonly IdFieldName[]): bigint {
  return names.reduce((mask, n) => mask | (meta[n].maxBig << meta[n].startBig), 0n);
}

/** Validates a layout (INVALID_LAYOUT) and computes its positions and masks. */
export function createIdMeta(spec: IdMetaSpec): IdMeta {
  if (typeof spec !== 'object' || spec === null || !Array.isArray(spec.fields)) {
    throw invalid('a layout needs a list of fields');
  }
  const unitMs = spec.unitMs;
  if (typeof unitMs !== 'number' || !Number.isInteger(unitMs) || unitMs < 1 || unitMs > 864e5) {
    throw invalid(
      `unitMs must be a whole number of milliseconds from 1 to 86400000, got ${String(unitMs)}`,
    );
  }
  if (spec.type !== 0 && spec.type !== 1) {
    throw invalid(`a layout's type must be 0 or 1, got ${String(spec.type)}`);
  }
  const name: unknown = spec.name;
  if (name !== undefined && (typeof name !== 'string' || !/^[a-z0-9][a-z0-9-]{0,63}$/.test(name))) {
    throw invalid(`a layout's name must be 1 to 64 of a-z, 0-9 and '-', got ${String(name)}`);
  }
  const placed = new Map<IdFieldName, IdField>();
  const order: IdFieldName[] = [];
  let start = 0;
  for (const { name, bits } of spec.fields) {
    if (name !== 'reserved' && !(name in WIDTH_KEYS)) {
      throw invalid(`unknown field ${JSON.stringify(name)}`, { field: name });
    }
    const min = name === 'reserved' || REQUIRED.has(name) ? 1 : 0;
    const max = name === 'type' ? 1 : MAX_FIELD_BITS;
    if (typeof bits !== 'number' || !Number.isInteger(bits) || bits < min || bits > max) {
      const shown = WIDTH_KEYS[name as IdFieldName] ?? name;
      throw invalid(
        `${shown} must be a whole number of bits from ${min} to ${max}, got ${String(bits)}`,
        { field: shown, bits },
      );
    }
    if (name !== 'reserved') {
      if (placed.has(name)) throw invalid(`field ${name} appears twice`, { field: name });
      placed.set(name, field(bits, start));
      if (bits > 0) order.push(name);
    }
    start += bits;
  }
  if (start > 64)
    throw invalid(`the layout needs ${start} bits; an id has 64`, { totalBits: start });
  for (const name of REQUIRED) {
    if (!placed.has(name)) throw invalid(`a layout needs a ${name} field`, { field: name });
  }
  const fields = Object.fromEntries(
    VESTA_FIELD_ORDER.map((n) => [n, placed.get(n) ?? field(0, 0)]),
  ) as Record<IdFieldName, IdField>;
  const widths = Object.freeze(
    Object.fromEntries(VESTA_FIELD_ORDER.map((n) => [WIDTH_KEYS[n], fields[n].bits])),
  ) as unknown as IdMetaWidths;
  const vestaOrder =
    !spec.fields.some((f) => f.name === 'reserved') &&
    order.join() === VESTA_FIELD_ORDER.filter((n) => fields[n].bits > 0).join();
  return Object.freeze({
    spec: Object.freeze({
      fields: Object.freeze(spec.fields.map((f) => Object.freeze({ name: f.name, bits: f.bits }))),
      unitMs,
      type: spec.type,
      ...(name === undefined ? {} : { name }),
    }),
    ...fields,
    unitMs,
    idType: spec.type,
    widths,
    vestaOrder,
    totalBits: start,
    name,
  });
}

/** The spec of a layout in Vesta's field order from its widths. */
export function vestaLayoutSpec(widths: IdMetaWidths, type: IdType, unitMs: number): IdMetaSpec {
  if (typeof widths !== 'object' || widths === null) throw invalid('a layout needs field widths');
  const fields = VESTA_FIELD_ORDER.map((name) => ({ name, bits: widths[WIDTH_KEYS[name]] }));
  return { fields, unitMs, type };
}
