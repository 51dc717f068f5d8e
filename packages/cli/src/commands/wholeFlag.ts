import { VestaError, type VestaErrorCode } from '@vesta/core';
import { checkOption, wholeNumber } from '@vesta/core/kit';

/** The bounds a {@link wholeFlag} checks; without them, the field it goes into checks its own. */
export interface FlagRange {
  readonly min: number;
  readonly max: number;
}

/** A TCP port flag's range (0: any free port). */
export const PORT: FlagRange = { min: 0, max: 65_535 };

/** A machine id's range in the Vesta layout (an admin's argument). */
export const MACHINE_ID: FlagRange = { min: 0, max: 1023 };

/** What a bad flag is: INVALID_OPTIONS for a start's flags, INVALID_ARGUMENT for a command's input. */
type FlagCode = Extract<VestaErrorCode, 'INVALID_OPTIONS' | 'INVALID_ARGUMENT'>;

/**
 * The command line's one whole-number parser: digits only (Number() would also take '1e3',
 * ' 7' or '0x10'), at most 15 of them (below 2^53), within `range` when given; undefined when
 * the flag is not given. A bad value is `code`, naming the flag.
 */
export function wholeFlag(flag: string, raw: string, range?: FlagRange, code?: FlagCode): number;
export function wholeFlag(
  flag: string,
  raw: string | undefined,
  range?: FlagRange,
  code?: FlagCode,
): number | undefined;
export function wholeFlag(
  flag: string,
  raw: string | undefined,
  range?: FlagRange,
  code: FlagCode = 'INVALID_OPTIONS',
): number | undefined {
  if (raw === undefined) return undefined;
  const digits = /^[0-9]{1,15}$/.test(raw);
  if (range === undefined) {
    if (digits) return Number(raw);
    throw new VestaError(
      code,
      `${flag} must be a whole decimal number, got ${JSON.stringify(raw)}`,
    );
  }
  try {
    return checkOption(wholeNumber(range.min, range.max), flag, digits ? Number(raw) : raw);
  } catch (error) {
    if (code === 'INVALID_OPTIONS' || !VestaError.is(error)) throw error;
    throw new VestaError(code, error.message, { cause: error });
  }
}
