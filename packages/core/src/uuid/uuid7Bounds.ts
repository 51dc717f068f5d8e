import type { UuidBounds } from '../codec/TimeBounds.js';
import { uuidText } from './uuidForms.js';

/** Version 7 and variant 0b10, where RFC 9562 puts them (bits 79-76 and 63-62). */
const FIXED = (7n << 76n) | (0b10n << 62n);
/** Every bit but the time, the version and the variant. */
const FREE = (0xfffn << 64n) | ((1n << 62n) - 1n);

/**
 * The smallest and largest UUIDv7 (any issuer's, Vesta's included) of the Unix ms `fromMs` to
 * `toMs`, both inclusive, as canonical text. A v7 UUID sorts by its time first, as 16 bytes (a
 * PostgreSQL `uuid`) and as text, so `BETWEEN min AND max` finds exactly those of the window.
 * The callers check the window: whole ms from 0 to 2^48 - 1, `fromMs <= toMs`.
 *
 * @example uuid7Bounds(0, 0) // { min: '00000000-0000-7000-8000-000000000000', max: '00000000-0000-7fff-bfff-ffffffffffff' }
 */
export function uuid7Bounds(fromMs: number, toMs: number): UuidBounds {
  return {
    min: uuidText((BigInt(fromMs) << 80n) | FIXED),
    max: uuidText((BigInt(toMs) << 80n) | FIXED | FREE),
  };
}
