import { VestaError } from '@vesta/core';

const KEY = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * The `{key}` of a path after `prefix` (Leaf's business keys, segment keys), validated:
 * INVALID_ARGUMENT for malformed percent-encoding or anything but 1 to 128 of A-Z, a-z, 0-9,
 * '_', '-' and '.'.
 */
export function pathKey(url: string, prefix: string): string {
  const at = url.indexOf('?');
  const raw = url.slice(url.indexOf(prefix) + prefix.length, at < 0 ? undefined : at);
  let key: string;
  try {
    key = decodeURIComponent(raw);
  } catch (cause) {
    throw new VestaError('INVALID_ARGUMENT', 'malformed percent-encoding in the key', { cause });
  }
  if (!KEY.test(key)) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      "the key must be 1 to 128 of A-Z, a-z, 0-9, '_', '-' and '.'",
      { details: { key: key.slice(0, 40) } },
    );
  }
  return key;
}
