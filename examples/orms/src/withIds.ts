import type { IdService } from '@vesta/core';

/**
 * The rows, each with a Vesta id in `key` (default `id`), for an ORM's insert of one or many
 * rows: one `genIds` call for the whole batch (1 to the service's `maxBatch` rows, 100000 by
 * default), strictly increasing in row order. A row that already has a value in `key` keeps it.
 *
 * @example
 * await db.insertInto('orders').values(await withIds(ids, [{ customer: 'a' }, { customer: 'b' }])).execute();
 */
export async function withIds<Row extends object, Key extends string = 'id'>(
  ids: Pick<IdService, 'genIds'>,
  rows: readonly Row[],
  key: Key = 'id' as Key,
): Promise<(Row & Record<Key, bigint>)[]> {
  if (rows.length === 0) return [];
  const fresh = await ids.genIds(rows.length);
  return rows.map(
    (row, i) =>
      ({ ...row, [key]: (row as Record<Key, unknown>)[key] ?? fresh[i] }) as Row &
        Record<Key, bigint>,
  );
}
