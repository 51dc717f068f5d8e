import { VestaError } from '../errors/VestaError.js';

/**
 * The text forms of an id. Decimal stays the default on every wire; the others are fixed-width,
 * so their string order (byte-wise, as a database or `sort` compares) is the ids' order.
 * - `decimal`: unsigned, 1 to 20 digits (`18446744073709551615`).
 * - `signed`: what Java's `long` prints: ids of 2^63 and above (version 1) are negative.
 * - `hex`: 16 lower-case hexadecimal digits (`ffffffffffffffff`).
 * - `base32`: 13 characters of Crockford's base 32 (`0-9A-Z` without I, L, O, U), upper case.
 * - `base62`: 11 characters of `0-9A-Za-z` (in ASCII order, so string order is numeric order).
 */
export const ID_FORMS = ['decimal', 'signed', 'hex', 'base32', 'base62'] as const;
export type IdForm = (typeof ID_FORMS)[number];

/** Whether a value names an id form. */
function isIdForm(value: unknown): value is IdForm {
  return typeof value === 'string' && (ID_FORMS as readonly string[]).includes(value);
}

/** Accepts the name of an id form; anything else is INVALID_ARGUMENT naming `what`. */
export function parseIdForm(value: unknown, what = 'format'): IdForm {
  if (isIdForm(value)) return value;
  const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : typeof value;
  throw new VestaError(
    'INVALID_ARGUMENT',
    `${what} must be one of ${ID_FORMS.join(', ')}, got ${shown}`,
    { details: { forms: ID_FORMS } },
  );
}
