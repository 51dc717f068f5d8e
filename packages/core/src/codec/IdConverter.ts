import { VestaError } from '../errors/VestaError.js';
import type {
  IdField,
  IdFieldName,
  IdMeta,
  IdMetaFieldSpec,
  IdMetaWidths,
} from '../layout/IdMeta.js';
import { IdType, parseIdType } from '../layout/IdType.js';
import { standardLayout } from '../layout/standardLayouts.js';
import type { Logger } from '../logging/Logger.js';
import type { Id, MakeIdFields } from './Id.js';
import type { IdForm } from './IdForm.js';
import { checkField } from './checkField.js';
import { idRangesOfWindow } from './idRangesOfWindow.js';
import { parseId } from './parseId.js';
import type { TimeBounds, TimeBoundsFilter } from './TimeBounds.js';
import { uuid7Bounds } from '../uuid/uuid7Bounds.js';

const FIELDS: readonly IdFieldName[] = ['machine', 'seq', 'time', 'genMethod', 'type', 'version'];
const YEAR_MS = 365 * 24 * 3600 * 1000;
/** The last ms a UUIDv7's 48-bit time holds (year 10889), and so a window's. */
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
  /**
   * The layout preset (`'vesta-max-peak'`, `'twitter'`, `'leaf'`, ... see `LAYOUT_PRESETS`), or
   * `'custom'`.
   */
  readonly preset: string;
  readonly type: IdType;
  /** The name of the type: max-peak (0) or min-granularity (1); for other layouts, a label of `type`. */
  readonly typeName: 'max-peak' | 'min-granularity';
  /** The epoch as an ISO-8601 date, and in Unix ms. */
  readonly epoch: string;
  readonly epochMs: number;
  /** Milliseconds in one time unit: 1000 (max-peak) or 1 (min-granularity); 10 for sonyflake. */
  readonly unitMs: number;
  /** The first instant the time field cannot hold. */
  readonly expiry: string;
  /** The width of each field (0 for a field the layout does not have). */
  readonly layout: IdMetaWidths;
  /** The fields from the lowest bit up, reserved bits included: the field order. */
  readonly fields: readonly IdMetaFieldSpec[];
}

/** The fields `makeId` fills when the caller leaves them out: the issuer's own. */
export interface MakeIdDefaults {
  readonly machine: number;
  readonly genMethod: number;
  readonly version: number;
}

/** The bits of an id that belong to a field of `layout` (reserved bits and those above are not). */
function fieldMask(layout: IdMeta): bigint {
  let mask = 0n;
  for (const name of FIELDS) mask |= layout[name].maxBig << layout[name].startBig;
  return mask;
}

/**
 * The one place ids are taken apart and put together: a layout and an epoch give decoding
 * (`expId`), encoding (`makeId`, every field range-checked: an oversized field is
 * INVALID_ARGUMENT, never spilled into its neighbour), time fields as dates (`transTime`), the
 * layout's `info()` and its expiry. The service, the client, both servers and the CLI all use
 * it. Besides its own layout, a codec reads the other Vesta type's standard ids when their type
 * bit stands in the same place, so one codec decodes ids of either type.
 */
export class IdConverter {
  /** The layout of the ids this codec's owner issues. */
  readonly layout: IdMeta;
  readonly epochMs: number;
  readonly #layouts: ReadonlyMap<IdType, IdMeta>;
  readonly #masks: ReadonlyMap<IdType, bigint>;

  constructor(layout: IdMeta, epochMs: number) {
    if (!Number.isSafeInteger(epochMs)) {
      throw new VestaError('INVALID_OPTIONS', `the epoch must be Unix ms, got ${String(epochMs)}`);
    }
    this.layout = layout;
    this.epochMs = epochMs;
    const layouts = new Map<IdType, IdMeta>([[layout.idType, layout]]);
    const otherType = layout.idType === IdType.MAX_PEAK ? IdType.MIN_GRANULARITY : IdType.MAX_PEAK;
    const other = standardLayout(otherType);
    if (layout.type.bits === 1 && layout.type.start === other.type.start) {
      layouts.set(otherType, other);
    }
    this.#layouts = layouts;
    this.#masks = new Map([...layouts].map(([type, l]) => [type, fieldMask(l)]));
  }

  /** A codec of the standard Vesta layouts: the CLI's, and any reader of standard ids. */
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

  /** Encodes every field of an id. Throws INVALID_ARGUMENT naming the first field out of range. */
  encode(id: Id): bigint {
    const type = parseIdType(id.type);
    const layout = this.layoutOf(type);
    let out = 0n;
    for (const name of FIELDS) {
      const field = layout[name];
      // A layout without a type bit still has a type: finding its layout above checked it.
      if (name === 'type' && field.bits === 0) continue;
      const value = checkField(name, id[name], field);
      if (field.bits > 0) out |= BigInt(value) << field.startBig;
    }
    return out;
  }

  /**
   * Decodes an id: a bigint, or a string in `form` (decimal by default, Java's negative
   * decimals included; see `parseId`); the type is read from the id itself.
   */
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

  /**
   * Encodes fields: `time` and `seq` are required, the others default to `defaults` (the
   * issuer's own) and to this codec's type; each is range-checked.
   */
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
    const max = layout.time.max;
    if (typeof time !== 'number' || !Number.isInteger(time) || time < 0 || time > max) {
      throw new VestaError(
        'INVALID_ARGUMENT',
        `time must be a whole number from 0 to ${max}, got ${String(time)}`,
      );
    }
    return new Date(this.epochMs + time * layout.unitMs);
  }

  /**
   * The smallest and largest id and UUIDv7 of the time window `[fromMs, toMs]` (Unix ms, both
   * inclusive), for `WHERE id BETWEEN min AND max`.
   *
   * An id falls in the window when the start of its time unit (the date `transTime` gives) does:
   * a max-peak id of 12:00:00 is in a window from 12:00:00.000, not in one from 12:00:00.001. The
   * ids of a window form one range per value of the fields above time, since those are higher
   * bits: one range for a layout whose time is the top field (Twitter, Leaf, sonyflake...),
   * four for Vesta's (genMethod 0 to 3, under the type and version fixed below). Each range runs
   * from the window's first unit with every lower field 0 to its last with every lower field at
   * its largest (reserved bits stay 0), and the ranges come in increasing order.
   *
   * The window is clamped to what the time field holds (a window reaching before the epoch starts
   * at unit 0, one reaching past the expiry ends at the last unit); a window in which no unit
   * starts (before the epoch, past the expiry, or inside one unit after its start) has no `ids`.
   *
   * `only` narrows the ids: `genMethod` to one range; `type` picks the layout (the converter's own
   * by default); `version` is 0 unless given. A filter on a field that lies below time in the
   * layout is INVALID_ARGUMENT (its ids are no range).
   *
   * The UUID bounds are the layout's own: min is `fromMs` with version 7, variant 0b10 and every
   * other bit 0, max is `toMs` with every other bit 1, both canonical lower-case text; a v7 UUID
   * sorts by its ms as bytes and as text.
   *
   * INVALID_ARGUMENT for a `fromMs` or `toMs` that is not whole Unix ms from 0 to 2^48 - 1, for
   * `fromMs > toMs`, and for a filter value out of its field's range.
   *
   * @example
   * // The Vesta max-peak ids and the UUIDs of 2026-11-27 (UTC), every genMethod: 4 ranges.
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

  /** The layout part of every mode's `info()`. */
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
