import { VestaError } from '../errors/VestaError.js';
import type { IdField } from '../layout/IdMeta.js';

/**
 * A field's value, checked: a whole number from 0 to the field's largest; INVALID_ARGUMENT naming
 * the field otherwise (never masked into range, never spilled into a neighbour).
 */
export function checkField(name: string, value: unknown, field: IdField): number {
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
