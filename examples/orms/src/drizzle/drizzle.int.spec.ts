import { asc, eq, like } from 'drizzle-orm';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { pgTable, text } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { first } from '../testing/first.js';
import { MAX_INT8_ID } from '../testing/MAX_INT8_ID.js';
import { startOrmFixture, type OrmFixture } from '../testing/startOrmFixture.js';
import { vestaBigintId } from './vestaBigintId.js';
import { vestaUuid } from './vestaUuid.js';

let fixture: OrmFixture;
let pool: pg.Pool;
let db: NodePgDatabase;

// The tables need the id service: in an application, a module that exports the started service
// (top-level await) and is imported by the schema.
function tables(ids: OrmFixture['ids']) {
  return {
    orders: pgTable('drizzle_orders', {
      id: vestaBigintId('id', ids).primaryKey(),
      customer: text('customer').notNull(),
    }),
    events: pgTable('drizzle_events', {
      id: vestaUuid('id', ids).primaryKey(),
      name: text('name').notNull(),
    }),
  };
}
let orders: ReturnType<typeof tables>['orders'];
let events: ReturnType<typeof tables>['events'];

beforeAll(async () => {
  fixture = await startOrmFixture(32);
  await fixture.ddl(`
    CREATE TABLE drizzle_orders (id bigint PRIMARY KEY, customer text NOT NULL);
    CREATE TABLE drizzle_events (id uuid PRIMARY KEY, name text NOT NULL);
  `);
  ({ orders, events } = tables(fixture.ids));
  pool = new pg.Pool({ connectionString: fixture.postgres.url });
  // node-postgres requires an 'error' listener on a pool: an idle client the server ends (here: the
  // fixture stopping PostgreSQL while pool.end() still closes it) is dropped by the pool, and
  // without a listener that event would throw out of the process.
  pool.on('error', () => undefined);
  db = drizzle({ client: pool });
});

afterAll(async () => {
  await pool?.end();
  await fixture?.dispose();
});

describe('Vesta ids in Drizzle (node-postgres, vestaBigintId and vestaUuid)', () => {
  it('generates the id on insert, above 2^53, and reads it back as that bigint', async () => {
    const inserted = first(await db.insert(orders).values({ customer: 'ada' }).returning());
    const read = first(await db.select().from(orders).where(eq(orders.id, inserted.id)));
    expect(inserted.id).toBeGreaterThan(2n ** 53n);
    expect(typeof read.id).toBe('bigint');
    expect(read.id).toBe(inserted.id);
    expect(fixture.ids.expId(read.id).machine).toBe(32);
  });

  it('writes and reads back 2^63 - 1, the largest bigint, exactly', async () => {
    await db.insert(orders).values({ id: MAX_INT8_ID, customer: 'edge' });
    const [read] = await db.select().from(orders).where(eq(orders.id, MAX_INT8_ID));
    expect(read?.id).toBe(MAX_INT8_ID);
  });

  it('inserts a batch of 1000 rows with unique increasing ids, each read back exactly', async () => {
    const inserted = await db
      .insert(orders)
      .values(Array.from({ length: 1000 }, (_, i) => ({ customer: `batch-${i}` })))
      .returning();
    const read = await db
      .select()
      .from(orders)
      .where(like(orders.customer, 'batch-%'))
      .orderBy(asc(orders.id));
    expect(new Set(read.map((r) => r.id)).size).toBe(1000);
    expect(read.every((r) => typeof r.id === 'bigint')).toBe(true);
    expect(read.map((r) => r.id.toString())).toEqual(
      await fixture.idsAsText('drizzle_orders', 'customer', 'batch-'),
    );
    expect(read).toEqual(inserted);
    expect(read.map((r) => r.customer)).toEqual(inserted.map((_, i) => `batch-${i}`));
  });

  it('stores a Vesta UUIDv7 in a uuid column and reads it back equal', async () => {
    const inserted = await db
      .insert(events)
      .values([{ name: 'created' }, { name: 'paid' }])
      .returning();
    const read = await db.select().from(events).orderBy(asc(events.id));
    expect(read).toEqual(inserted);
    expect(read[0]?.id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});
