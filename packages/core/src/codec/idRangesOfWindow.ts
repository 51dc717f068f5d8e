import { VestaError } from '../errors/VestaError.js';
import { VESTA_FIELD_ORDER, type IdFieldName, type IdMeta } from '../layout/IdMeta.js';
import { checkField } from './checkField.js';
import type { IdRange, TimeBoundsFilter } from './TimeBounds.js';

/** More ranges than this (a custom layout with a wide field above time) is INVALID_ARGUMENT. */
const MAX_RANGES = 4096;

/** `a / b` rounded down, exact for any safe integers (a float division would round first). */
function floorDiv(a: number, b: number): number {
  const r = ((a % b) + b) % b;
  return (a - r) / b;
}

/** The value a field above time is fixed to (the filter's, the layout's type), if any. */
function fixedAbove(name: IdFieldName, layout: IdMeta, only: TimeBoundsFilter): number | undefined {
  if (name === 'type') return layout.idType;
  return name === 'genMethod'
    ? only.genMethod
    : name === 'version'
      ? (only.version ?? 0)
      : undefined;
}

/**
 * The ranges of the ids of `layout` (epoch `epochMs`) whose time unit starts in the window
 * `[fromMs, toMs]` (Unix ms, checked by the caller): see {@link IdConverter.timeBounds}. The
 * fields above time are found from the positions, so any layout `IdMeta` describes works.
 */
export function idRangesOfWindow(
  layout: IdMeta,
  epochMs: number,
  fromMs: number,
  toMs: number,
  only: TimeBoundsFilter,
): IdRange[] {
  const time = layout.time;
  let low = 0n;
  let high = 0n;
  const above: { name: IdFieldName; fixed: number | undefined; count: number }[] = [];
  for (const name of VESTA_FIELD_ORDER) {
    const field = layout[name];
    const given = name === 'genMethod' || name === 'version' ? only[name] : undefined;
    if (given !== undefined) checkField(name, given, field);
    if (name === 'time' || field.bits === 0) continue;
    if (field.start > time.start) {
      const fixed = fixedAbove(name, layout, only);
      above.push({ name, fixed, count: fixed === undefined ? field.max + 1 : 1 });
    } else if (given !== undefined) {
      throw new VestaError(
        'INVALID_ARGUMENT',
        `${name} lies below time in this layout: the ids of one ${name} in a window are no range`,
      );
    } else {
      const value = name === 'type' ? BigInt(layout.idType) : field.maxBig;
      if (name === 'type') low |= value << field.startBig;
      high |= value << field.startBig;
    }
  }
  const first = Math.max(0, -floorDiv(epochMs - fromMs, layout.unitMs));
  const last = Math.min(time.max, floorDiv(toMs - epochMs, layout.unitMs));
  if (first > last) return [];
  // Counted before any range is built: a wide field above time must not allocate its values.
  const count = above.reduce((n, f) => n * f.count, 1);
  if (count > MAX_RANGES) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `the ids of a window are ${count} ranges in this layout (fields above time: ${above.map((f) => f.name).join(', ')}); at most ${MAX_RANGES}`,
    );
  }
  let ranges: IdRange[] = [
    {
      min: low | (BigInt(first) << time.startBig),
      max: high | (BigInt(last) << time.startBig),
    },
  ];
  for (const { name, fixed, count: n } of above) {
    const start = layout[name].startBig;
    const values = fixed === undefined ? Array.from({ length: n }, (_, i) => i) : [fixed];
    ranges = ranges.flatMap((range) =>
      values.map((value) => ({
        ...range,
        min: range.min | (BigInt(value) << start),
        max: range.max | (BigInt(value) << start),
        [name]: value,
      })),
    );
  }
  return ranges.sort((a, b) => (a.min < b.min ? -1 : a.min > b.min ? 1 : 0));
}
