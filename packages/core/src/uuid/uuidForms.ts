import { VestaError } from '../errors/VestaError.js';
import { parseFormName, shown } from '../codec/IdForm.js';

/**
 * The text forms of a UUID, fixed-width so that string order is the UUIDs' order: `canonical`
 * (RFC 9562's 8-4-4-4-12 lower-case hex, the default), `hex` (32 digits), `base32` (26 Crockford
 * characters, as a ULID is written).
 */
export const UUID_FORMS = ['canonical', 'hex', 'base32'] as const;
export type UuidForm = (typeof UUID_FORMS)[number];

const BASE32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const MASK_128 = (1n << 128n) - 1n;
const CANONICAL = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX = /^[0-9a-f]{32}$/i;
const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/i;

/** The 128-bit value of a UUID as text in any form (either case) or 16 bytes; else INVALID_ARGUMENT. */
export function parseUuid(value: string | Uint8Array): bigint {
  if (value instanceof Uint8Array) {
    if (value.length !== 16) {
      throw new VestaError('INVALID_ARGUMENT', `a UUID is 16 bytes, got ${value.length}`);
    }
    return BigInt(`0x${Buffer.from(value).toString('hex')}`);
  }
  if (typeof value === 'string') {
    if (CANONICAL.test(value) || HEX.test(value)) return BigInt(`0x${value.replaceAll('-', '')}`);
    if (ULID.test(value)) {
      let n = 0n;
      for (const char of value.toUpperCase()) n = (n << 5n) | BigInt(BASE32.indexOf(char));
      return n;
    }
  }
  throw new VestaError(
    'INVALID_ARGUMENT',
    `a UUID is 8-4-4-4-12 hex digits, 32 hex digits, 26 base32 characters or 16 bytes, got ${shown(value, 48)}`,
  );
}

/** 32 hex digits as RFC 9562's canonical 8-4-4-4-12 text (the digits' case kept). */
export function uuidOfHex(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A 128-bit value as the text of `form`. */
export function uuidText(value: bigint, form: UuidForm = 'canonical'): string {
  const n = value & MASK_128;
  if (form === 'base32') {
    let text = '';
    for (let shift = 125n; shift >= 0n; shift -= 5n) text += BASE32[Number((n >> shift) & 31n)];
    return text;
  }
  const hex = n.toString(16).padStart(32, '0');
  return form === 'hex' ? hex : uuidOfHex(hex);
}

/** Accepts the name of a UUID form; anything else is INVALID_ARGUMENT naming `what`. */
export function parseUuidForm(value: unknown, what = 'format'): UuidForm {
  return parseFormName(UUID_FORMS, value, what, 48);
}

/** A UUID (text in any form, or 16 bytes) as the text of `form`, the canonical form by default. */
export function formatUuid(value: string | Uint8Array, form: UuidForm = 'canonical'): string {
  return uuidText(parseUuid(value), parseUuidForm(form));
}

/** A UUID (text in any form) as its 16 bytes, first byte first. */
export function uuidBytes(value: string | Uint8Array): Uint8Array {
  return Uint8Array.from(Buffer.from(uuidText(parseUuid(value), 'hex'), 'hex'));
}
