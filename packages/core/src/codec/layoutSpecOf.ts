import type { IdMetaSpec } from '../layout/IdMeta.js';
import type { IdConverterInfo } from './IdConverter.js';

/** The full layout spec an `info()` describes (field order, unit, type, preset name). */
export function layoutSpecOf(info: IdConverterInfo): IdMetaSpec {
  return {
    fields: info.fields,
    unitMs: info.unitMs,
    type: info.type,
    ...(info.preset === 'custom' ? {} : { name: info.preset }),
  };
}
