import type { IdType } from '../layout/IdType.js';
import type { Id } from './Id.js';

/**
 * The ids of one time window that share their fields above time: every id from `min` to `max`
 * (inclusive) whose time unit starts in the window, and no other id of the layout. For
 * `WHERE id BETWEEN min AND max`.
 *
 * The fields above time in the layout (genMethod, type and version in Vesta's; none in
 * Twitter's, whose time is the top field) are the same for every id of the range and are
 * given beside it; fields below time are not.
 */
export interface IdRange extends Partial<Omit<Id, 'time'>> {
  /** The smallest id: the window's first time unit, every field below time 0. */
  readonly min: bigint;
  /** The largest id: the window's last time unit, every field below time at its largest. */
  readonly max: bigint;
}

/** Narrows {@link IdConverter.timeBounds} to some values of the fields above time. */
export interface TimeBoundsFilter {
  /**
   * Only the ids of this generation method (0 embedded, 1 central server, 2 REST).
   * @default undefined (every genMethod: one range each)
   */
  readonly genMethod?: number;
  /**
   * Only the ids of this type: the converter must have a layout for it.
   * @default the converter's own type
   */
  readonly type?: IdType;
  /**
   * Only the ids of this version.
   * @default 0 (the version Vesta issues under unless told otherwise)
   */
  readonly version?: number;
}

/** The smallest and largest UUIDv7 of a window: `WHERE uuid BETWEEN min AND max`. */
export interface UuidBounds {
  /** Canonical lower-case text: the window's first ms, version 7, variant 0b10, every other bit 0. */
  readonly min: string;
  /** Canonical lower-case text: the window's last ms, version 7, variant 0b10, every other bit 1. */
  readonly max: string;
}

/** What {@link IdConverter.timeBounds} gives: the ids and UUIDs of a window `[fromMs, toMs]`. */
export interface TimeBounds {
  /** The window's first instant, Unix ms (inclusive). */
  readonly fromMs: number;
  /** The window's last instant, Unix ms (inclusive). */
  readonly toMs: number;
  /**
   * One range per value of the fields above time, in increasing order; empty when no time unit
   * of the layout starts in the window.
   */
  readonly ids: readonly IdRange[];
  readonly uuids: UuidBounds;
}
