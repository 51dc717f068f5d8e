import { VestaError } from '../errors/VestaError.js';
import { DEFAULT_EPOCH_MS } from '../time/parseEpoch.js';
import {
  createIdMeta,
  vestaLayoutSpec,
  type IdMeta,
  type IdMetaFieldSpec,
  type IdMetaWidths,
} from './IdMeta.js';
import { IdType } from './IdType.js';

/** Type 0, max-peak: 10 machine, 20 sequence, 30 time (seconds), 2 genMethod, 1 type, 1 version. */
export const MAX_PEAK_LAYOUT: IdMeta = createIdMeta(
  vestaLayoutSpec(
    { machineBits: 10, seqBits: 20, timeBits: 30, genMethodBits: 2, typeBits: 1, versionBits: 1 },
    IdType.MAX_PEAK,
    1000,
    'vesta-max-peak',
  ),
);

/** Type 1, min-granularity: 10 machine, 10 sequence, 40 time (milliseconds), 2, 1, 1. */
export const MIN_GRANULARITY_LAYOUT: IdMeta = createIdMeta(
  vestaLayoutSpec(
    { machineBits: 10, seqBits: 10, timeBits: 40, genMethodBits: 2, typeBits: 1, versionBits: 1 },
    IdType.MIN_GRANULARITY,
    1,
    'vesta-min-granularity',
  ),
);

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
export const TWITTER_EPOCH_MS = 1288834974657;

/** The widths of a Baidu uid-generator layout (sign bit 1 + these = 64). */
export interface UidGeneratorWidths {
  /** @default 28 */
  readonly timeBits: number;
  /** @default 22 */
  readonly workerBits: number;
  /** @default 13 */
  readonly seqBits: number;
}

export const UID_GENERATOR_WIDTHS: UidGeneratorWidths = Object.freeze({
  timeBits: 28,
  workerBits: 22,
  seqBits: 13,
});

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
  const custom = Object.keys(widths).some(
    (k) =>
      widths[k as keyof UidGeneratorWidths] !== UID_GENERATOR_WIDTHS[k as keyof UidGeneratorWidths],
  );
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
  return createIdMeta({
    fields: spec as IdMetaFieldSpec[],
    unitMs,
    type,
    ...(name === undefined ? {} : { name }),
  });
}

/** `sign 0 | 41-bit ms | 10-bit worker | 12-bit sequence` from the highest bit. */
const snowflake = (name: string): IdMeta =>
  fromLowest(1, 1, name, { seq: 12, machine: 10, time: 41, reserved: 1 });

const PRESETS = {
  'vesta-max-peak': {
    layout: MAX_PEAK_LAYOUT,
    epochMs: DEFAULT_EPOCH_MS,
    description: 'Vesta type 0: seconds, the highest peak (the default)',
  },
  'vesta-min-granularity': {
    layout: MIN_GRANULARITY_LAYOUT,
    epochMs: DEFAULT_EPOCH_MS,
    description: 'Vesta type 1: milliseconds, the finest ordering',
  },
  twitter: {
    layout: snowflake('twitter'),
    epochMs: TWITTER_EPOCH_MS,
    description: "Twitter's Snowflake",
  },
  leaf: {
    layout: snowflake('leaf'),
    epochMs: TWITTER_EPOCH_MS,
    description: "Meituan Leaf's snowflake mode (Twitter's shape and epoch)",
  },
  nacos: {
    layout: snowflake('nacos'),
    epochMs: 1533429240000,
    description: "Nacos' SnowFlowerIdGenerator",
  },
  'uid-generator': {
    layout: uidGeneratorLayout(),
    // DefaultUidGenerator's epochStr "2016-05-20", read in China time: 1463673600 s.
    epochMs: 1463673600000,
    description: "Baidu uid-generator's DefaultUidGenerator",
  },
  sonyflake: {
    layout: fromLowest(10, 1, 'sonyflake', { machine: 16, seq: 8, time: 39 }),
    epochMs: Date.UTC(2014, 8, 1),
    description: "Sony's sonyflake",
  },
  discord: {
    // Discord's internal process id (5 bits) below its worker id (5 bits): one machine field.
    layout: fromLowest(1, 1, 'discord', { seq: 12, machine: 10, time: 42 }),
    epochMs: Date.UTC(2015, 0, 1),
    description: "Discord's snowflakes",
  },
  'js-safe': {
    // 256 machines, 16384 ids a second each, until 2093.
    layout: fromLowest(1000, 0, 'js-safe', { seq: 14, machine: 8, time: 31 }),
    epochMs: DEFAULT_EPOCH_MS,
    description: 'ids below 2^53, safe as JSON numbers',
  },
} as const;

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
