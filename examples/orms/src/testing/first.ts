/** The first element of `rows`; throws when there is none. */
export function first<T>(rows: readonly T[]): T {
  if (rows.length === 0) throw new Error('expected at least one row, got none');
  return rows[0] as T;
}
