import type { IdType } from '../layout/IdType.js';

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
export interface MakeIdFields {
  readonly time: number;
  readonly seq: number;
  readonly machine?: number;
  readonly genMethod?: number;
  readonly type?: IdType;
  readonly version?: number;
}
