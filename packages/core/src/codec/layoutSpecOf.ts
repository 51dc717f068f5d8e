import type { IdLayoutSpec } from '../layout/IdLayout.js';
import type { IdCodecInfo } from './IdCodec.js';

/** The full layout spec an `info()` describes (field order, unit, type, preset name). */
export function layoutSpecOf(info: IdCodecInfo): IdLayoutSpec {
  return {
    fields: info.fields,
    unitMs: info.unitMs,
    type: info.type,
    ...(info.preset === 'custom' ? {} : { name: info.preset }),
  };
}
