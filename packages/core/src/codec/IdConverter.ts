import { VestaError } from '../errors/VestaError.js';
import { fieldsMask, VESTA_FIELD_ORDER, type IdField, type IdFieldName } from '../layout/IdMeta.js';
import type { IdMeta, IdMetaFieldSpec, IdMetaSpec, IdMetaWidths } from '../layout/IdMeta.js';
import { IdType, parseIdType } from '../layout/IdType.js';
import { standardLayout } from '../layout/layoutPresets.js';
import type { Logger } from '../logging/Logger.js';
import { type IdForm, parseId } from './IdForm.js';
import { uuid7Bounds, type UuidBounds } from '../uuid/uuid7Bits.js';

/** The fields of one id, as {@link IdConverter} decodes and encodes them. */
export interface Id {
  readonly machine: number;
  readonly seq: number;
  /** Time units since the epoch: seconds (max-peak) or milliseconds (min-granularity). */
  readonly time: number;
  readonly genMethod: number;
  readonly type: IdType;
  readonly version: number;
}

/** The fields of {@link IdService.makeId}: the rest default to the service's own. */
export type MakeIdFields = Pick<Id, 'time' | 'seq'> & Partial<Omit<Id, 'time' | 'seq'>>;

/** The ids of a window sharing their fields above time (given beside): every id from `min` to `max`. */
export interface IdRange extends Partial<Omit<Id, 'time'>> {
  /** The smallest id: the window's first time unit, every field below time 0. */
  readonly min: bigint;
  /** The largest id: the window's last time unit, every field below time at its largest. */
  readonly max: bigint;
}

/** Narrows {@link IdConverter.timeBounds} to some values of the fields above time. */
export interface TimeBoundsFilter {
  /** Only the ids of this genMethod. @default every genMethod, one range each */
  readonly genMethod?: number;
  /** Only the ids of this type. @default the converter's own type */
  readonly type?: IdType;
  /** Only the ids of this version. @default 0 */
  readonly version?: number;
}

/** What {@link IdConverter.timeBounds} gives: the ids and UUIDs of a window `[fromMs, toMs]`. */
export interface TimeBounds {
  readonly fromMs: number;
  readonly toMs: number;
  /** One range per value of the fields above time, increasing; empty when no unit starts. */
  readonly ids: readonly IdRange[];
  readonly uuids: UuidBounds;
}

const YEAR_MS = 365 * 24 * 3600 * 1000;
const MAX_UNIX_MS = 2 ** 48 - 1;

function checkUnixMs(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_UNIX_MS) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `${name} must be whole Unix ms from 0 to ${MAX_UNIX_MS}, got ${String(value)}`,
    );
  }
  return value;
}

/** The layout part of `info()`, the same in every mode. */
export interface IdConverterInfo {
  /** The layout preset (see `LAYOUT_PRESETS`), or `'custom'`. */
  readonly preset: string;
  readonly type: IdType;
  /** The name of the type (for other layouts than Vesta's, a label of `type`). */
  readonly typeName: 'max-peak' | 'min-granularity';
  readonly epoch: string;
  readonly epochMs: number;
  readonly unitMs: number;
  /** The first instant the time field cannot hold. */
  readonly expiry: string;
  /** The width of each field (0 for a field the layout does not have). */
  readonly layout: IdMetaWidths;
  /** The fields from the lowest bit up, reserved bits included. */
  readonly fields: readonly IdMetaFieldSpec[];
}

/** The fields `makeId` fills when the caller leaves them out: the issuer's own. */
export type MakeIdDefaults = Pick<Id, 'machine' | 'genMethod' | 'version'>;

/**
 * The one place ids are taken apart and put together for a layout and an epoch (every field
 * range-checked, never spilled). It also reads the other Vesta type's standard ids when their
 * type bit stands in the same place.
 */
export class IdConverter {
  readonly #layouts: ReadonlyMap<IdType, IdMeta>;
  readonly #masks: ReadonlyMap<IdType, bigint>;

  constructor(
    readonly layout: IdMeta,
    readonly epochMs: number,
  ) {
    if (!Number.isSafeInteger(epochMs)) {
      throw new VestaError('INVALID_OPTIONS', `the epoch must be Unix ms, got ${String(epochMs)}`);
    }
    const other = standardLayout(layout.idType === IdType.MAX_PEAK ? 1 : 0);
    const both = layout.type.bits === 1 && layout.type.start === other.type.start;
    const layouts = both ? [layout, other] : [layout];
    this.#layouts = new Map(layouts.map((l) => [l.idType, l]));
    this.#masks = new Map(layouts.map((l) => [l.idType, fieldsMask(l, VESTA_FIELD_ORDER)]));
  }

  /** A codec of the standard Vesta layouts. */
  static standard(epochMs: number, type: IdType = IdType.MAX_PEAK): IdConverter {
    return new IdConverter(standardLayout(type), epochMs);
  }

  /** The layout of a type; INVALID_ARGUMENT when this codec has none for it. */
  layoutOf(type: IdType): IdMeta {
    const layout = this.#layouts.get(type);
    if (layout === undefined) {
      throw new VestaError('INVALID_ARGUMENT', `no layout is configured for ids of type ${type}`);
    }
    return layout;
  }

  /** The type an id says it is (the layout's own type when its ids carry none). */
  typeOf(id: bigint): IdType {
    const bit = this.layout.type;
    if (bit.bits === 0) return this.layout.idType;
    return Number((id >> bit.startBig) & 1n) as IdType;
  }

  /** Encodes an id; INVALID_ARGUMENT naming the first field out of range. */
  encode(id: Id): bigint {
    const type = parseIdType(id.type);
    const layout = this.layoutOf(type);
    let out = 0n;
    for (const name of VESTA_FIELD_ORDER) {
      const field = layout[name];
      if (name === 'type' && field.bits === 0) continue;
      const value = checkField(name, id[name], field);
      if (field.bits > 0) out |= BigInt(value) << field.startBig;
    }
    return out;
  }

  /** Decodes an id (a bigint, or a string in `form`: see `parseId`); its type read from the id. */
  expId(value: bigint | string, form?: IdForm): Id {
    const id = parseId(value, form);
    const type = this.typeOf(id);
    const layout = this.layoutOf(type);
    if (layout.totalBits < 64 && id >> BigInt(layout.totalBits) !== 0n) {
      throw new VestaError(
        'INVALID_ARGUMENT',
        `id ${id} has bits set above the ${layout.totalBits}-bit layout`,
      );
    }
    if ((id & ~(this.#masks.get(type) as bigint)) !== 0n) {
      throw new VestaError('INVALID_ARGUMENT', `id ${id} has reserved bits set`);
    }
    const read = (field: IdField): number => Number((id >> field.startBig) & field.maxBig);
    return {
      machine: read(layout.machine),
      seq: read(layout.seq),
      time: read(layout.time),
      genMethod: read(layout.genMethod),
      type,
      version: read(layout.version),
    };
  }

  /** Encodes fields: `time` and `seq` are required, the others default to `defaults`. */
  makeId(fields: MakeIdFields, defaults: MakeIdDefaults): bigint {
    if (typeof fields !== 'object' || fields === null) {
      throw new VestaError('INVALID_ARGUMENT', 'makeId needs an object with time and seq');
    }
    return this.encode({
      machine: fields.machine ?? defaults.machine,
      seq: fields.seq,
      time: fields.time,
      genMethod: fields.genMethod ?? defaults.genMethod,
      type: fields.type === undefined ? this.layout.idType : parseIdType(fields.type),
      version: fields.version ?? defaults.version,
    });
  }

  /** The date a time field stands for, in this codec's type or the one given. */
  transTime(time: number, type?: IdType): Date {
    const layout = this.layoutOf(type === undefined ? this.layout.idType : parseIdType(type));
    return new Date(this.epochMs + checkField('time', time, layout.time) * layout.unitMs);
  }

  /**
   * The smallest and largest id and UUIDv7 of the window `[fromMs, toMs]` (Unix ms, inclusive),
   * for `WHERE id BETWEEN min AND max`: an id is in it when its time unit starts in it. One id
   * range per value of the fields above time (four for Vesta's: genMethod 0 to 3), increasing.
   * `only` narrows genMethod, type and version (0 by default); a filter on a field below time,
   * bad or reversed bounds are INVALID_ARGUMENT.
   * @example // The ids (4 ranges: genMethod 0 to 3) and UUIDs of 2026-11-27 (UTC).
   * const day = Date.UTC(2026, 10, 27);
   * IdConverter.standard(Date.UTC(2025, 0, 1)).timeBounds(day, day + 86_400_000 - 1);
   */
  timeBounds(fromMs: number, toMs: number, only: TimeBoundsFilter = {}): TimeBounds {
    checkUnixMs('fromMs', fromMs);
    checkUnixMs('toMs', toMs);
    if (fromMs > toMs) {
      throw new VestaError(
        'INVALID_ARGUMENT',
        `the window must not end before it starts: fromMs ${fromMs} is after toMs ${toMs}`,
      );
    }
    const type = only.type === undefined ? this.layout.idType : parseIdType(only.type);
    const ids = idRangesOfWindow(this.layoutOf(type), this.epochMs, fromMs, toMs, only);
    return { fromMs, toMs, ids, uuids: uuid7Bounds(fromMs, toMs) };
  }

  /** The first instant the time field of this codec's layout cannot hold. */
  get expiry(): Date {
    return new Date(this.epochMs + (this.layout.time.max + 1) * this.layout.unitMs);
  }

  info(): IdConverterInfo {
    const type = this.layout.idType;
    return {
      preset: this.layout.name ?? 'custom',
      type,
      typeName: type === IdType.MAX_PEAK ? 'max-peak' : 'min-granularity',
      epoch: new Date(this.epochMs).toISOString(),
      epochMs: this.epochMs,
      unitMs: this.layout.unitMs,
      expiry: this.expiry.toISOString(),
      layout: this.layout.widths,
      fields: this.layout.spec.fields,
    };
  }

  /** Logs a warning when the time field runs out less than a year after `nowMs`. */
  warnIfExpiring(logger: Logger, nowMs: number): void {
    const leftMs = this.expiry.getTime() - nowMs;
    if (leftMs < YEAR_MS) {
      logger.warn(
        { expiry: this.expiry.toISOString(), daysLeft: Math.floor(leftMs / 86_400_000) },
        'the time field of this layout runs out in less than a year; plan a new epoch or layout',
      );
    }
  }
}

const MAX_RANGES = 4096;

/** `a / b` rounded down, exact for any safe integers. */
function floorDiv(a: number, b: number): number {
  const r = ((a % b) + b) % b;
  return (a - r) / b;
}

function idRangesOfWindow(
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
      const fixed = name === 'type' ? layout.idType : name === 'version' ? (given ?? 0) : given;
      above.push({ name, fixed, count: fixed === undefined ? field.max + 1 : 1 });
    } else if (given !== undefined) {
      throw new VestaError(
        'INVALID_ARGUMENT',
        `${name} lies below time in this layout: the ids of one ${name} in a window are no range`,
      );
    } else {
      if (name === 'type') low |= BigInt(layout.idType) << field.startBig;
      high |= (name === 'type' ? BigInt(layout.idType) : field.maxBig) << field.startBig;
    }
  }
  const first = Math.max(0, -floorDiv(epochMs - fromMs, layout.unitMs));
  const last = Math.min(time.max, floorDiv(toMs - epochMs, layout.unitMs));
  if (first > last) return [];
  low |= BigInt(first) << time.startBig;
  high |= BigInt(last) << time.startBig;
  // Counted before any range is built: a wide field above time must not allocate its values.
  const count = above.reduce((n, f) => n * f.count, 1);
  if (count > MAX_RANGES) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `the ids of a window are ${count} ranges in this layout (fields above time: ${above.map((f) => f.name).join(', ')}); at most ${MAX_RANGES}`,
    );
  }
  let ranges: IdRange[] = [{ min: low, max: high }];
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

function checkField(name: string, value: unknown, field: IdField): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > field.max) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `${name} must be a whole number from 0 to ${field.max}, got ${String(value)}`,
      {
        details: {
          field: name,
          value: typeof value === 'number' ? value : String(value),
          max: field.max,
        },
      },
    );
  }
  return value;
}

/** The full layout spec an `info()` describes (field order, unit, type, preset name). */
export function layoutSpecOf(info: IdConverterInfo): IdMetaSpec {
  return {
    fields: info.fields,
    unitMs: info.unitMs,
    type: info.type,
    ...(info.preset === 'custom' ? {} : { name: info.preset }),
  };
}
