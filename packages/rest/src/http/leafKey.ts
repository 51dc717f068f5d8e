import { VestaError } from '@vesta/core';

/** A key of Leaf's snowflake path: 1 to 128 of A-Z, a-z, 0-9, '_', '-' and '.'. */
export const LEAF_KEY = /^[A-Za-z0-9_.-]{1,128}$/;

/** Checks the key of Leaf's snowflake path ({@link LEAF_KEY}): INVALID_ARGUMENT otherwise. */
export function leafKey(key: string): string {
  if (!LEAF_KEY.test(key)) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      "the key must be 1 to 128 of A-Z, a-z, 0-9, '_', '-' and '.'",
      { details: { key: key.slice(0, 40) } },
    );
  }
  return key;
}
