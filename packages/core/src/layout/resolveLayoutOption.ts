import { VestaError } from '../errors/VestaError.js';
import { DEFAULT_EPOCH_MS } from '../time/epochs.js';
import { createIdMeta, type IdMeta, type IdMetaSpec, type IdMetaWidths } from './IdMeta.js';
import { IdType } from './IdType.js';
import { isLayoutPresetName, layoutPreset, type LayoutPresetName } from './layoutPresets.js';
import { vestaLayout } from './standardLayouts.js';

/**
 * What the `layout` option takes: a preset name (`'twitter'`, `'leaf'`, ... see
 * `LAYOUT_PRESETS`), a full layout spec (`{ fields, unitMs, type }`, any field order), or field
 * widths that replace those of the Vesta type's standard layout.
 */
export type LayoutOption = LayoutPresetName | IdMetaSpec | Partial<IdMetaWidths>;

/** A `layout` option resolved: the layout, and the epoch that applies when none is given. */
export interface ResolvedLayoutOption {
  readonly layout: IdMeta;
  /** The preset's epoch; Vesta's default (2025-01-01) for a custom layout. */
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
 * The one reading of the `layout` option (with `type`) every mode, the CLI and the client use.
 * A preset or spec fixes the type: a `type` that says otherwise is INVALID_OPTIONS. A spec
 * named after a preset must be that preset's shape (INVALID_LAYOUT otherwise). Widths and an
 * absent layout keep Vesta's behaviour exactly: the type's standard layout, widths replaced.
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
