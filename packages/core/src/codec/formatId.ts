import { base32OfId, FIXED_WIDTH_FORMS } from './fixedWidthForms.js';
import { parseIdForm, type IdForm } from './IdForm.js';
import { parseId } from './parseId.js';

const TWO_63 = 1n << 63n;
const TWO_64 = 1n << 64n;

/**
 * An id (a bigint, or a string {@link parseId} reads) as text in `form`, the inverse of
 * `parseId(text, form)`. Decimal, the default, is unsigned; `'signed'` prints what Java's
 * `long` would (ids of 2^63 and above as negatives). The fixed-width forms keep id order as
 * string order. INVALID_ARGUMENT for an id outside 0..2^64-1 or an unknown form.
 *
 * @example
 * formatId(18446744073709551615n, 'base32'); // 'FZZZZZZZZZZZZ'
 * formatId(18446744073709551615n, 'base62'); // 'LygHa16AHYF'
 * formatId(18446744073709551615n, 'signed'); // '-1'
 */
export function formatId(id: bigint | string, form: IdForm = 'decimal'): string {
  // The common call, a bigint as base32, without the general checks' lookups.
  if (form === 'base32' && typeof id === 'bigint' && id >= 0n && id < TWO_64) {
    return base32OfId(id);
  }
  const value = parseId(id);
  const f = parseIdForm(form);
  switch (f) {
    case 'decimal':
      return value.toString();
    case 'signed':
      return (value < TWO_63 ? value : value - TWO_64).toString();
    default:
      return FIXED_WIDTH_FORMS[f].encode(value);
  }
}
