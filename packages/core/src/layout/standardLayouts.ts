import { createIdMeta, vestaLayoutSpec, type IdMeta, type IdMetaWidths } from './IdMeta.js';
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

/** The standard layout of a Vesta type. */
export function standardLayout(type: IdType): IdMeta {
  return type === IdType.MAX_PEAK ? MAX_PEAK_LAYOUT : MIN_GRANULARITY_LAYOUT;
}

/** Milliseconds in one time unit of a Vesta type: a second for max-peak, a millisecond for min-granularity. */
export function vestaUnitMs(type: IdType): number {
  return type === IdType.MAX_PEAK ? 1000 : 1;
}

/**
 * A layout in Vesta's field order: the type's standard layout with some widths replaced (the
 * `layout` option). Throws INVALID_LAYOUT.
 */
export function vestaLayout(type: IdType, widths: Partial<IdMetaWidths> = {}): IdMeta {
  if (Object.keys(widths).length === 0) return standardLayout(type);
  return createIdMeta(
    vestaLayoutSpec({ ...standardLayout(type).widths, ...widths }, type, vestaUnitMs(type)),
  );
}
