/** For tests: the id at `index` (negative counts from the end); a missing one fails the test. */
export function idAt(ids: readonly bigint[], index: number): bigint {
  const id = ids.at(index);
  if (id === undefined) throw new Error(`no id at ${index}`);
  return id;
}
