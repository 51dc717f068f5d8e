import type { IdType } from '../layout/IdType.js';
import type { UuidBounds } from '../uuid/uuid7Bits.js';
import type { Id } from './Id.js';

/**
 * The ids of one time window that share their fields above time (given beside the range):
 * every id from `min` to `max` whose time unit starts in the window, and no other.
 */
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
