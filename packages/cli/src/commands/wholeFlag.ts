import { VestaError, type VestaErrorCode } from '@vesta/core';
import { checkOption, wholeNumber } from '@vesta/core/kit';
import type { z } from 'zod';

/** A TCP port flag's range (0: any free port). */
export const PORT = wholeNumber(0, 65_535).optional();

/** A machine id's range in the Vesta layout (an admin's argument). */
export const MACHINE_ID = wholeNumber(0, 1023);

/** What a bad flag is: INVALID_OPTIONS for a start's flags, INVALID_ARGUMENT for a command's input. */
type FlagCode = Extract<VestaErrorCode, 'INVALID_OPTIONS' | 'INVALID_ARGUMENT'>;

/** The one number parser: 1 to 15 digits, checked by an option schema when given (its default if absent). */
export function wholeFlag<T extends number | undefined = number | undefined>(
  flag: string,
  raw: unknown,
  schema?: z.ZodType<T>,
  code: FlagCode = 'INVALID_OPTIONS',
): T {
  const digits = typeof raw === 'string' && /^[0-9]{1,15}$/.test(raw);
  if (schema === undefined) {
    if (raw === undefined || digits) return (digits ? Number(raw) : undefined) as T;
    throw new VestaError(
      code,
      `${flag} must be a whole decimal number, got ${JSON.stringify(raw)}`,
    );
  }
  try {
    return checkOption(schema, flag, digits ? Number(raw) : raw);
  } catch (error) {
    if (code === 'INVALID_OPTIONS' || !VestaError.is(error)) throw error;
    throw new VestaError(code, error.message, { cause: error });
  }
}

/** A bad or conflicting flag of a start: INVALID_OPTIONS. */
export function invalidFlag(message: string): VestaError {
  return new VestaError('INVALID_OPTIONS', message);
}

/** A whole number of at least `min` as a bigint (up to 19 digits); INVALID_ARGUMENT. */
export function wholeBigFlag(flag: string, raw: string, min: bigint): bigint {
  if (!/^[0-9]{1,19}$/.test(raw) || BigInt(raw) < min) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `${flag} must be a whole number of at least ${min}, got ${JSON.stringify(raw.slice(0, 40))}`,
    );
  }
  return BigInt(raw);
}
