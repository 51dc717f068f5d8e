import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bigintTypes } from '../pg/bigintTypes.js';
import { first } from '../testing/first.js';
import { MAX_INT8_ID } from '../testing/MAX_INT8_ID.js';
import { startOrmFixture, type OrmFixture } from '../testing/startOrmFixture.js';
import { withIds } from '../withIds.js';
import { withUuids } from '../withUuids.js';

interface Database {
  kysely_orders: { id: bigint; customer: string };
  kysely_events: { id: string; name: string };
}

let fixture: OrmFixture;
let db: Kysely<Database>;

beforeAll(async () => {
  fixture = await startOrmFixture(31);
  await fixture.ddl(`
    CREATE TABLE kysely_orders (id bigint PRIMARY KEY, customer text NOT NULL);
    CREATE TABLE kysely_events (id uuid PRIMARY KEY, name text NOT NULL);
  `);
  const pool = new pg.Pool({ connectionString: fixture.postgres.url, types: bigintTypes });
  // node-postgres requires an 'error' listener on a pool: an idle client the server ends (here: the
  // fixture stopping PostgreSQL while pool.end() still closes it) is dropped by the pool, and
  // without a listener that event would throw out of the process.
  pool.on('error', () => undefined);
  db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
});

afterAll(async () => {
  await db?.destroy();
  await fixture?.dispose();
});

describe('Vesta ids in Kysely (node-postgres, bigintTypes)', () => {
  it('stores a generated id above 2^53 in a bigint column and reads it back as that bigint', async () => {
    const row = first(await withIds(fixture.ids, [{ customer: 'ada' }]));
    await db.insertInto('kysely_orders').values(row).execute();
    const read = await db
      .selectFrom('kysely_orders')
      .selectAll()
      .where('id', '=', row.id)
      .executeTakeFirstOrThrow();
    expect(row.id).toBeGreaterThan(2n ** 53n);
    expect(typeof read.id).toBe('bigint');
    expect(read.id).toBe(row.id);
    expect(fixture.ids.expId(read.id).machine).toBe(31);
  });

  it('writes and reads back 2^63 - 1, the largest bigint, exactly', async () => {
    const [row] = await db
      .insertInto('kysely_orders')
      .values({ id: MAX_INT8_ID, customer: 'edge' })
      .returning('id')
      .execute();
    expect(row?.id).toBe(MAX_INT8_ID);
    // A Vesta id all the same: min-granularity, genMethod 3, every field at its largest.
    expect(
      fixture.ids.makeId({ time: 2 ** 40 - 1, seq: 1023, machine: 1023, type: 1, genMethod: 3 }),
    ).toBe(MAX_INT8_ID);
  });

  it('inserts a batch of 1000 rows with unique increasing ids, each read back exactly', async () => {
    const rows = await withIds(
      fixture.ids,
      Array.from({ length: 1000 }, (_, i) => ({ customer: `batch-${i}` })),
    );
    await db.insertInto('kysely_orders').values(rows).execute();
    const read = await db
      .selectFrom('kysely_orders')
      .select(['id', 'customer'])
      .where('customer', 'like', 'batch-%')
      .orderBy('id')
      .execute();
    expect(new Set(read.map((r) => r.id)).size).toBe(1000);
    expect(read.every((r) => typeof r.id === 'bigint')).toBe(true);
    expect(read.map((r) => r.id.toString())).toEqual(
      await fixture.idsAsText('kysely_orders', 'customer', 'batch-'),
    );
    expect(read).toEqual(rows.map(({ id, customer }) => ({ id, customer })));
  });

  it('stores a Vesta UUIDv7 in a uuid column and reads it back equal', async () => {
    const rows = await withUuids(fixture.ids, [{ name: 'created' }, { name: 'paid' }]);
    await db.insertInto('kysely_events').values(rows).execute();
    const read = await db.selectFrom('kysely_events').selectAll().orderBy('id').execute();
    expect(read).toEqual(rows);
    expect(read[0]?.id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('reads a bigint[] as an array of bigints', async () => {
    const { rows } = await sql<{
      ids: bigint[];
    }>`SELECT ARRAY[${MAX_INT8_ID}, 1]::int8[] AS ids`.execute(db);
    expect(rows[0]?.ids).toEqual([MAX_INT8_ID, 1n]);
  });

  it('reads the same column as a string through a pool without bigintTypes (the trap it avoids)', async () => {
    const plain = new pg.Pool({ connectionString: fixture.postgres.url });
    plain.on('error', () => undefined); // as the dialect's pool above
    try {
      const { rows } = await plain.query<{ id: unknown }>(
        'SELECT id FROM kysely_orders WHERE id = $1',
        [MAX_INT8_ID],
      );
      expect(rows[0]?.id).toBe(MAX_INT8_ID.toString());
      // ...and as a number, 2^63 - 1 is its neighbour: Number() rounds both to 2^63.
      expect(Number(rows[0]?.id)).toBe(Number(MAX_INT8_ID - 1n));
    } finally {
      await plain.end();
    }
  });
});
