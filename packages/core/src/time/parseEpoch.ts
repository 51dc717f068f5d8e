import { VestaError } from '../errors/VestaError.js';

/** The default epoch: 2025-01-01T00:00:00.000Z. Max-peak ids run out 34 years later, in 2059. */
export const DEFAULT_EPOCH_MS = Date.UTC(2025, 0, 1);

/** The epoch of Java Vesta's releases with a 2-bit genMethod: 2015-01-01T00:00:00+08:00. */
export const JAVA_VESTA_EPOCH_MS = 1420041600000;

const UNIX_MS = /^[0-9]{1,16}$/;
// YYYY-MM-DD, optionally THH:MM[:SS[.sss]] with a mandatory Z or ±HH:MM.
const ISO_8601 =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})(?:T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,3}))?)?(Z|([+-])([0-9]{2}):([0-9]{2})))?$/;

function invalid(name: string, value: unknown): VestaError {
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return new VestaError(
    'INVALID_OPTIONS',
    `${name} must be Unix ms (digits only) or an ISO-8601 date-time with Z or an offset ` +
      `(2025-01-01T00:00:00Z) or a date (2025-01-01, UTC midnight), at or after 1970; got ${shown}`,
  );
}

function parseIso(name: string, raw: string): number {
  const m = ISO_8601.exec(raw);
  if (m === null) throw invalid(name, raw);
  // A zone is required after a time: without one the epoch would follow the host's time zone.
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '0', , sign, oh = '0', om = '0'] = m;
  const fields = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)] as const;
  const local = Date.UTC(...fields, Number(frac.padEnd(3, '0')));
  // Date.UTC rolls 2025-02-30 over to March 2 (and years 0-99 to 19xx): refuse that instead.
  const rolled = new Date(local).toISOString().slice(0, 19) !== `${y}-${mo}-${d}T${h}:${mi}:${s}`;
  if (rolled || Number(oh) > 23 || Number(om) > 59) throw invalid(name, raw);
  const offsetMs = (Number(oh) * 60 + Number(om)) * 60_000 * (sign === '-' ? -1 : 1);
  return local - offsetMs;
}

/**
 * Reads an epoch: undefined for {@link DEFAULT_EPOCH_MS}; Unix ms as a number or digits (`'2025'`
 * is never a year); a `Date`; an ISO-8601 date-time with `Z` or an offset; a date (UTC midnight).
 * Else INVALID_OPTIONS naming `name`.
 * @example
 * parseEpoch('2015-01-01T00:00:00+08:00'); // 1420041600000
 * parseEpoch('1420041600000'); // 1420041600000
 */
export function parseEpoch(value: number | Date | string | undefined, name = 'epoch'): number {
  if (value === undefined) return DEFAULT_EPOCH_MS;
  let ms: number;
  if (typeof value === 'number') ms = value;
  else if (value instanceof Date) ms = value.getTime();
  else if (typeof value === 'string')
    ms = UNIX_MS.test(value) ? Number(value) : parseIso(name, value);
  else throw invalid(name, value);
  if (!Number.isSafeInteger(ms) || ms < 0) throw invalid(name, value);
  return ms;
}

/** An instant a request gives, read as {@link parseEpoch} reads an epoch; else INVALID_ARGUMENT. */
export function parseInstant(value: string, name: string): number {
  try {
    return parseEpoch(value, name);
  } catch (error) {
    throw new VestaError('INVALID_ARGUMENT', (error as Error).message, { cause: error });
  }
}
