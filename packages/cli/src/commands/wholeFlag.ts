import { VestaError } from '@vesta/core';

/**
 * A flag of a whole decimal number (digits only: no sign, exponent or hex), undefined when not
 * given; INVALID_ARGUMENT naming `flag` otherwise. The field it goes into checks its own range.
 */
export function wholeFlag(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^[0-9]{1,15}$/.test(raw)) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `${flag} must be a whole decimal number, got ${JSON.stringify(raw)}`,
    );
  }
  return Number(raw);
}
