import { IdType } from '@vesta/core';
import { vestaUnitMs } from '@vesta/core/kit';

/** Milliseconds in one time unit of the requested id type: a new holder starts one unit past a mark. */
export function leaseUnitMs(type: number): number {
  return vestaUnitMs(type === IdType.MIN_GRANULARITY ? IdType.MIN_GRANULARITY : IdType.MAX_PEAK);
}
