import { LAYOUT_PRESETS, VestaError, type LayoutOption } from '@vesta/core';
import { isLayoutPresetName, uidGeneratorLayout } from '@vesta/core/kit';

const UID_GENERATOR = /^uid-generator:([0-9]{1,2}),([0-9]{1,2}),([0-9]{1,2})$/;

/**
 * Reads `--layout`: a preset name (`leaf`, `twitter`, `vesta-max-peak`, ...), `uid-generator:T,W,S`
 * (uid-generator's time, worker and sequence bits, adding up to 63), or a JSON layout spec
 * (`{"fields":[{"name":"seq","bits":12},...],"unitMs":1,"type":1}`). INVALID_OPTIONS otherwise
 * (INVALID_LAYOUT for a spec or widths the layout refuses).
 */
export function parseLayoutFlag(raw: string, flag = '--layout'): LayoutOption {
  if (isLayoutPresetName(raw)) return raw;
  const uid = UID_GENERATOR.exec(raw);
  if (uid !== null) {
    const [timeBits, workerBits, seqBits] = uid.slice(1).map(Number) as [number, number, number];
    return uidGeneratorLayout({ timeBits, workerBits, seqBits }).spec;
  }
  if (raw.trimStart().startsWith('{')) {
    let spec: unknown;
    try {
      spec = JSON.parse(raw);
    } catch (cause) {
      throw new VestaError('INVALID_OPTIONS', `${flag} is not valid JSON`, { cause });
    }
    if (typeof spec !== 'object' || spec === null || !('fields' in spec)) {
      throw new VestaError('INVALID_OPTIONS', `${flag} as JSON must be a layout spec with fields`);
    }
    return spec as LayoutOption;
  }
  throw new VestaError(
    'INVALID_OPTIONS',
    `${flag} must be a preset (${Object.keys(LAYOUT_PRESETS).join(', ')}), uid-generator:T,W,S or a JSON layout spec, got ${JSON.stringify(raw.slice(0, 40))}`,
  );
}
