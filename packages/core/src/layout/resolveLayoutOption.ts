import { VestaError } from '../errors/VestaError.js';
import { DEFAULT_EPOCH_MS } from '../time/parseEpoch.js';
import { createIdMeta, type IdMeta, type IdMetaSpec, type IdMetaWidths } from './IdMeta.js';
import { IdType } from './IdType.js';
import {
  isLayoutPresetName,
  layoutPreset,
  type LayoutPresetName,
  vestaLayout,
} from './layoutPresets.js';

/**
 * What the `layout` option takes: a preset name (see `LAYOUT_PRESETS`), a full layout spec (any
 * field order), or field widths that replace those of the Vesta type's standard layout.
 */
export type LayoutOption = LayoutPresetName | IdMetaSpec | Partial<IdMetaWidths>;

/** A `layout` option resolved, with the epoch that applies when none is given. */
export interface ResolvedLayoutOption {
  readonly layout: IdMeta;
  readonly defaultEpochMs: number;
}

function isSpec(value: object): value is IdMetaSpec {
  return 'fields' in value;
}

function sameShape(a: IdMeta, b: IdMeta): boolean {
  return (
    a.unitMs === b.unitMs &&
    a.idType === b.idType &&
    a.spec.fields.length === b.spec.fields.length &&
    a.spec.fields.every(
      (f, i) => f.name === b.spec.fields[i]?.name && f.bits === b.spec.fields[i]?.bits,
    )
  );
}

/**
 * The one reading of the `layout` option with `type`. A preset or spec fixes the type (another
 * `type` is INVALID_OPTIONS); a spec named after a preset must have its shape (INVALID_LAYOUT).
 */
export function resolveLayoutOption(
  option: LayoutOption | undefined,
  type: IdType | undefined,
): ResolvedLayoutOption {
  if (option === undefined || (typeof option === 'object' && option !== null && !isSpec(option))) {
    return {
      layout: vestaLayout(type ?? IdType.MAX_PEAK, option ?? {}),
      defaultEpochMs: DEFAULT_EPOCH_MS,
    };
  }
  let layout: IdMeta;
  let defaultEpochMs = DEFAULT_EPOCH_MS;
  if (typeof option === 'string') {
    const preset = layoutPreset(option);
    layout = preset.layout;
    defaultEpochMs = preset.epochMs;
  } else {
    layout = createIdMeta(option);
    if (layout.name !== undefined) {
      if (
        !isLayoutPresetName(layout.name) ||
        !sameShape(layout, layoutPreset(layout.name).layout)
      ) {
        throw new VestaError(
          'INVALID_LAYOUT',
          `a layout spec named ${JSON.stringify(layout.name)} must be that preset's layout; leave the name out of a custom one`,
        );
      }
      defaultEpochMs = layoutPreset(layout.name).epochMs;
    }
  }
  if (type !== undefined && type !== layout.idType) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `type ${type} contradicts the layout ${layout.name ?? '(custom)'}, whose ids are of type ${layout.idType}; leave type out`,
    );
  }
  return { layout, defaultEpochMs };
}
