import { VestaError } from '../errors/VestaError.js';

/**
 * Validates a numeric option once, at construction: `fallback` when it is undefined, else a
 * whole number from `min` to `max`, else INVALID_OPTIONS naming the option and its range.
 * Every package's `resolveXxxOptions()` uses it, so the same mistake reads the same everywhere.
 */
export function wholeNumberOption(
  name: string,
  value: unknown,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `${name} must be a whole number from ${min} to ${max}, got ${String(value)}`,
    );
  }
  return value;
}
