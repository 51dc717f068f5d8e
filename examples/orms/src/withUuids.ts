import type { IdService } from '@vesta/core';

/**
 * The rows, each with a Vesta UUIDv7 (RFC 9562) in `key` (default `id`), for a `uuid` column:
 * one `genUuids` call for the whole batch, strictly increasing in row order. A row that already
 * has a value in `key` keeps it.
 */
export async function withUuids<Row extends object, Key extends string = 'id'>(
  ids: Pick<IdService, 'genUuids'>,
  rows: readonly Row[],
  key: Key = 'id' as Key,
): Promise<(Row & Record<Key, string>)[]> {
  if (rows.length === 0) return [];
  const fresh = await ids.genUuids(rows.length);
  return rows.map(
    (row, i) =>
      ({ ...row, [key]: (row as Record<Key, unknown>)[key] ?? fresh[i] }) as Row &
        Record<Key, string>,
  );
}
