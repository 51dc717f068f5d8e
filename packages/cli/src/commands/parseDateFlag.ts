import { parseEpoch, VestaError } from '@vesta/core';

/**
 * A date flag (`--date`, `--from`, `--to`) as Unix ms, in the formats `--epoch` takes (ISO-8601
 * with Z or an offset, a date alone at UTC midnight, or Unix ms), so a command reads a date as
 * the servers read an epoch. INVALID_ARGUMENT naming `flag` for anything else.
 */
export function parseDateFlag(raw: string, flag: string): number {
  try {
    return parseEpoch(raw, flag);
  } catch (error) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      error instanceof Error ? error.message : String(error),
      {
        cause: error,
      },
    );
  }
}
