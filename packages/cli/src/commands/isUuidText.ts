/** A UUID's text in any form: canonical, 32 hex digits, or 26 base32 characters (as a ULID). */
const UUID_TEXT =
  /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}|[0-7][0-9a-hjkmnp-tv-z]{25})$/i;

/**
 * Whether `raw` is a UUID in one of its forms (canonical, hex, base32), none of which is an
 * id's: an id's text is at most 20 characters. `vesta decode` and `vesta audit` tell UUIDs from
 * ids with it, whatever `--format` says.
 */
export function isUuidText(raw: string): boolean {
  return UUID_TEXT.test(raw);
}
