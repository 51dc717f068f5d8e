import { VestaError } from '../errors/VestaError.js';

const DECIMAL = /^[0-9]{1,20}$/;
const MAX_U64 = (1n << 64n) - 1n;

/**
 * Turns a bigint or a decimal string into an unsigned 64-bit id, without ever passing through
 * a JavaScript number. Rejects (INVALID_ARGUMENT) signs, spaces, exponents, hex, fractions,
 * negatives and values of 2^64 or more. Numbers are refused outright: above 2^53 they are
 * already wrong.
 */
export function parseId(value: unknown): bigint {
  let id: bigint;
  if (typeof value === 'bigint') {
    id = value;
  } else if (typeof value === 'string' && DECIMAL.test(value)) {
    id = BigInt(value);
  } else {
    const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : typeof value;
    throw new VestaError(
      'INVALID_ARGUMENT',
      `id must be a decimal string or a bigint, got ${shown}`,
    );
  }
  if (id < 0n || id > MAX_U64) {
    throw new VestaError('INVALID_ARGUMENT', `id must lie in 0..2^64-1, got ${id}`);
  }
  return id;
}
