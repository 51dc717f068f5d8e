import { IdType } from '../layout/IdType.js';
import { vestaUnitMs } from '../layout/standardLayouts.js';

/** Milliseconds in one time unit of the requested id type: a new holder starts one unit past a mark. */
export function leaseUnitMs(type: number): number {
  return vestaUnitMs(type === IdType.MIN_GRANULARITY ? IdType.MIN_GRANULARITY : IdType.MAX_PEAK);
}
