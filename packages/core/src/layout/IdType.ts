import { VestaError } from '../errors/VestaError.js';

/** The two Vesta id types: `MAX_PEAK` (0, seconds, the highest peak), `MIN_GRANULARITY` (1, ms). */
export const IdType = { MAX_PEAK: 0, MIN_GRANULARITY: 1 } as const;
export type IdType = (typeof IdType)[keyof typeof IdType];

export const ID_TYPE_NAMES = {
  'max-peak': IdType.MAX_PEAK,
  'min-granularity': IdType.MIN_GRANULARITY,
} as const;
export type IdTypeName = keyof typeof ID_TYPE_NAMES;

/** Accepts 0, 1, '0', '1', 'max-peak' or 'min-granularity'; anything else is INVALID_ARGUMENT. */
export function parseIdType(value: unknown, what = 'type'): IdType {
  if (value === 0 || value === '0' || value === 'max-peak') return IdType.MAX_PEAK;
  if (value === 1 || value === '1' || value === 'min-granularity') return IdType.MIN_GRANULARITY;
  throw new VestaError(
    'INVALID_ARGUMENT',
    `${what} must be 0 (max-peak) or 1 (min-granularity), got ${JSON.stringify(value)}`,
  );
}
