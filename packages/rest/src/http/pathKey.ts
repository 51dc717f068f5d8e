import { VestaError } from '@vesta/core';

/**
 * The `{key}` of a path after `prefix` (Leaf's business keys, segment keys), percent-decoded,
 * for the route to check by its own rule. INVALID_ARGUMENT for malformed percent-encoding or an
 * unencoded '/'.
 */
export function pathKey(url: string, prefix: string): string {
  const at = url.indexOf('?');
  const raw = url.slice(url.indexOf(prefix) + prefix.length, at < 0 ? undefined : at);
  // express also matches `{prefix}{key}/`: a key is one path segment, its own slashes encoded.
  if (raw.includes('/')) {
    throw new VestaError('INVALID_ARGUMENT', "a key in a path is one segment: its '/' is %2F", {
      details: { field: 'key' },
    });
  }
  try {
    return decodeURIComponent(raw);
  } catch (cause) {
    throw new VestaError('INVALID_ARGUMENT', 'malformed percent-encoding in the key', {
      cause,
      details: { field: 'key' },
    });
  }
}
