import {
  IdConverter,
  IdType,
  LAYOUT_PRESETS,
  parseEpoch,
  VestaError,
  type IdMeta,
  type LayoutOption,
} from '@vesta/core';
import {
  idServiceOptions,
  isLayoutPresetName,
  resolveLayoutOption,
  uidGeneratorLayout,
} from '@vesta/core/kit';
import type { Command } from 'commander';
import { addSchemaFlags } from './addSchemaFlags.js';

const UID_GENERATOR = /^uid-generator:([0-9]{1,2}),([0-9]{1,2}),([0-9]{1,2})$/;

/** Reads `--layout`: a preset, `uid-generator:T,W,S` or a JSON layout spec; INVALID_OPTIONS. */
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

/** Reads --epoch as the library reads `epoch`, refusing one in the future; INVALID_OPTIONS. */
export function parseEpochFlag(raw: string | undefined): number {
  const epochMs = parseEpoch(raw, '--epoch');
  if (epochMs > Date.now())
    throw new VestaError(
      'INVALID_OPTIONS',
      `--epoch must not lie in the future, got ${new Date(epochMs).toISOString()}`,
    );
  return epochMs;
}

/** `--layout` (undefined: the standard layouts) and `--epoch` (default: the preset's). */
export function layoutAndEpoch(
  rawLayout: string | undefined,
  rawEpoch: string | undefined,
  type?: IdType,
): { layout: IdMeta | undefined; epochMs: number } {
  if (rawLayout === undefined) return { layout: undefined, epochMs: parseEpochFlag(rawEpoch) };
  const resolved = resolveLayoutOption(parseLayoutFlag(rawLayout), type);
  return {
    layout: resolved.layout,
    epochMs: rawEpoch === undefined ? resolved.defaultEpochMs : parseEpochFlag(rawEpoch),
  };
}

/** The converter of `--layout`, `--epoch` and `--type` (default: the Vesta layout of `type`). */
export function converterOf(
  rawLayout: string | undefined,
  rawEpoch: string | undefined,
  type?: IdType,
): IdConverter {
  const { layout, epochMs } = layoutAndEpoch(rawLayout, rawEpoch, type);
  return layout === undefined
    ? IdConverter.standard(epochMs, type ?? IdType.MAX_PEAK)
    : new IdConverter(layout, epochMs);
}

/** Adds `--type` (when `typed`), `--layout` and `--epoch` of the offline commands. */
export function addLayoutFlags(command: Command, typed: boolean): Command {
  const { type, layout, epoch } = idServiceOptions.schema.shape;
  return addSchemaFlags(command, {
    ...(typed ? { type: { schema: type, arg: 'type', env: false } as const } : {}),
    layout: { schema: layout, arg: 'layout' },
    epoch: { schema: epoch, arg: 'date' },
  });
}
