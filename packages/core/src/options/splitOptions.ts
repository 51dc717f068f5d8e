/**
 * Splits options in two by key: the part named in `keys` (what the caller's own declaration
 * resolves; anything but an object is passed on as it is, for that declaration to refuse) and
 * the rest, left for another part's resolver (the id service's, each worker's).
 */
export function splitOptions(
  keys: ReadonlySet<string>,
  options: unknown,
): { readonly own: unknown; readonly rest: Record<string, unknown> } {
  if (typeof options !== 'object' || options === null) return { own: options, rest: {} };
  const own: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) (keys.has(key) ? own : rest)[key] = value;
  return { own, rest };
}
