import { invalidOptions, VestaError } from '../errors/VestaError.js';
import { DEFAULT_EPOCH_MS } from '../time/parseEpoch.js';
import { createIdMeta, vestaLayoutSpec } from './IdMeta.js';
import type { IdMeta, IdMetaFieldSpec, IdMetaSpec, IdMetaWidths } from './IdMeta.js';
import { IdType } from './IdType.js';

function vesta(type: IdType, seq: number, name: string): IdMeta {
  const fields = { machine: 10, seq, time: 50 - seq, genMethod: 2, type: 1, version: 1 };
  return fromLowest(vestaUnitMs(type), type, name, fields);
}

export const MAX_PEAK_LAYOUT = vesta(IdType.MAX_PEAK, 20, 'vesta-max-peak');
export const MIN_GRANULARITY_LAYOUT = vesta(IdType.MIN_GRANULARITY, 10, 'vesta-min-granularity');

export function standardLayout(type: IdType): IdMeta {
  return type === IdType.MAX_PEAK ? MAX_PEAK_LAYOUT : MIN_GRANULARITY_LAYOUT;
}

export function vestaUnitMs(type: IdType): number {
  return type === IdType.MAX_PEAK ? 1000 : 1;
}

/** The type's standard layout with some widths replaced (INVALID_LAYOUT). */
export function vestaLayout(type: IdType, widths: Partial<IdMetaWidths> = {}): IdMeta {
  if (Object.keys(widths).length === 0) return standardLayout(type);
  return createIdMeta(
    vestaLayoutSpec({ ...standardLayout(type).widths, ...widths }, type, vestaUnitMs(type)),
  );
}

/** A layout preset: the shape of another system's ids and the epoch it uses by default. */
export interface LayoutPreset {
  readonly name: LayoutPresetName;
  readonly layout: IdMeta;
  /** The epoch the original uses (Unix ms); the `epoch` option overrides it. */
  readonly epochMs: number;
  readonly description: string;
}

/** Twitter's Snowflake epoch (2010-11-04T01:42:54.657Z), also Meituan Leaf's `twepoch`. */
const TWITTER_EPOCH_MS = 1288834974657;

/** The widths of a Baidu uid-generator layout (sign bit 1 + these = 64). */
export interface UidGeneratorWidths {
  /** @default 28 */
  readonly timeBits: number;
  /** @default 22 */
  readonly workerBits: number;
  /** @default 13 */
  readonly seqBits: number;
}

const UID_GENERATOR_WIDTHS: UidGeneratorWidths = { timeBits: 28, workerBits: 22, seqBits: 13 };

/** A Baidu uid-generator layout: `sign 1 | delta seconds | worker | sequence`, 64 bits in all. */
export function uidGeneratorLayout(widths: Partial<UidGeneratorWidths> = {}): IdMeta {
  const w = { ...UID_GENERATOR_WIDTHS, ...widths };
  const sum = w.timeBits + w.workerBits + w.seqBits;
  if (sum !== 63) {
    throw new VestaError(
      'INVALID_LAYOUT',
      `uid-generator's timeBits + workerBits + seqBits must be 63 (1 sign bit + 63 = 64), got ${String(sum)}`,
    );
  }
  const keys = Object.keys(widths) as (keyof UidGeneratorWidths)[];
  const custom = keys.some((k) => widths[k] !== UID_GENERATOR_WIDTHS[k]);
  const fields = { seq: w.seqBits, machine: w.workerBits, time: w.timeBits, reserved: 1 };
  return fromLowest(1000, 0, custom ? undefined : 'uid-generator', fields);
}

/** A layout of `fields` in key order, from the lowest bit up. */
function fromLowest(
  unitMs: number,
  type: IdType,
  name: string | undefined,
  fields: Partial<Record<IdMetaFieldSpec['name'], number>>,
): IdMeta {
  const spec = Object.entries(fields).map(([field, bits]) => ({ name: field, bits }));
  return createIdMeta({ fields: spec as IdMetaFieldSpec[], unitMs, type, ...(name && { name }) });
}

/** `sign 0 | 41-bit ms | 10-bit worker | 12-bit sequence` from the highest bit. */
const snowflake = (name: string): IdMeta =>
  fromLowest(1, 1, name, { seq: 12, machine: 10, time: 41, reserved: 1 });

const preset = (layout: IdMeta, epochMs: number, description: string) =>
  ({ layout, epochMs, description }) as const;

// uid-generator: DefaultUidGenerator's epochStr "2016-05-20", read in China time. discord: its
// process id (5 bits) below its worker id (5 bits), one machine field. js-safe: 256 machines,
// 16384 ids a second each, until 2093.
// prettier-ignore
const PRESETS = {
  'vesta-max-peak': preset(MAX_PEAK_LAYOUT, DEFAULT_EPOCH_MS, 'Vesta type 0: seconds, the highest peak (the default)'),
  'vesta-min-granularity': preset(MIN_GRANULARITY_LAYOUT, DEFAULT_EPOCH_MS, 'Vesta type 1: milliseconds, the finest ordering'),
  twitter: preset(snowflake('twitter'), TWITTER_EPOCH_MS, "Twitter's Snowflake"),
  leaf: preset(snowflake('leaf'), TWITTER_EPOCH_MS, "Meituan Leaf's snowflake mode (Twitter's shape and epoch)"),
  nacos: preset(snowflake('nacos'), 1533429240000, "Nacos' SnowFlowerIdGenerator"),
  'uid-generator': preset(uidGeneratorLayout(), 1463673600000, "Baidu uid-generator's DefaultUidGenerator"),
  sonyflake: preset(fromLowest(10, 1, 'sonyflake', { machine: 16, seq: 8, time: 39 }), Date.UTC(2014, 8, 1), "Sony's sonyflake"),
  discord: preset(fromLowest(1, 1, 'discord', { seq: 12, machine: 10, time: 42 }), Date.UTC(2015, 0, 1), "Discord's snowflakes"),
  'js-safe': preset(fromLowest(1000, 0, 'js-safe', { seq: 14, machine: 8, time: 31 }), DEFAULT_EPOCH_MS, 'ids below 2^53, safe as JSON numbers'),
};

export type LayoutPresetName = keyof typeof PRESETS;

export const LAYOUT_PRESETS: Readonly<Record<LayoutPresetName, LayoutPreset>> = Object.freeze(
  Object.fromEntries(
    Object.entries(PRESETS).map(([name, p]) => [name, Object.freeze({ name, ...p })]),
  ) as unknown as Record<LayoutPresetName, LayoutPreset>,
);

export function isLayoutPresetName(name: unknown): name is LayoutPresetName {
  return typeof name === 'string' && Object.hasOwn(LAYOUT_PRESETS, name);
}

/** The preset of a name; INVALID_LAYOUT for any other. */
export function layoutPreset(name: string): LayoutPreset {
  if (!isLayoutPresetName(name)) {
    throw new VestaError(
      'INVALID_LAYOUT',
      `unknown layout preset ${JSON.stringify(name)}; presets: ${Object.keys(LAYOUT_PRESETS).join(', ')}`,
    );
  }
  return LAYOUT_PRESETS[name];
}

/** The preset a layout is; undefined for a custom layout. */
export function presetOf(layout: IdMeta): LayoutPreset | undefined {
  return layout.name !== undefined && isLayoutPresetName(layout.name)
    ? LAYOUT_PRESETS[layout.name]
    : undefined;
}

/** The `layout` option: a preset name, a layout spec, or widths over the type's standard layout. */
export type LayoutOption = LayoutPresetName | IdMetaSpec | Partial<IdMetaWidths>;

/** A `layout` option resolved, with the epoch that applies when none is given. */
export interface ResolvedLayoutOption {
  readonly layout: IdMeta;
  readonly defaultEpochMs: number;
}

const sameShape = (a: IdMeta, b: IdMeta): boolean =>
  a.unitMs === b.unitMs &&
  a.idType === b.idType &&
  JSON.stringify(a.spec.fields) === JSON.stringify(b.spec.fields);

/**
 * The one reading of the `layout` option with `type`. A preset or spec fixes the type (another
 * `type` is INVALID_OPTIONS); a spec named after a preset must have its shape (INVALID_LAYOUT).
 */
export function resolveLayoutOption(
  option: LayoutOption | undefined,
  type: IdType | undefined,
): ResolvedLayoutOption {
  if (
    option === undefined ||
    (typeof option === 'object' && option !== null && !('fields' in option))
  ) {
    return {
      layout: vestaLayout(type ?? IdType.MAX_PEAK, option ?? {}),
      defaultEpochMs: DEFAULT_EPOCH_MS,
    };
  }
  const layout = typeof option === 'string' ? layoutPreset(option).layout : createIdMeta(option);
  const name = layout.name;
  if (
    name !== undefined &&
    (!isLayoutPresetName(name) || !sameShape(layout, LAYOUT_PRESETS[name].layout))
  ) {
    throw new VestaError(
      'INVALID_LAYOUT',
      `a layout spec named ${JSON.stringify(name)} must be that preset's layout; leave the name out of a custom one`,
    );
  }
  if (type !== undefined && type !== layout.idType) {
    throw invalidOptions(
      `type ${type} contradicts the layout ${name ?? '(custom)'}, whose ids are of type ${layout.idType}; leave type out`,
    );
  }
  return { layout, defaultEpochMs: presetOf(layout)?.epochMs ?? DEFAULT_EPOCH_MS };
}
