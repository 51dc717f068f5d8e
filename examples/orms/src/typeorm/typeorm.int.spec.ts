import 'reflect-metadata';
import { Column, DataSource, Entity, Like, PrimaryColumn, type Repository } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_INT8_ID } from '../testing/MAX_INT8_ID.js';
import { startOrmFixture, type OrmFixture } from '../testing/startOrmFixture.js';
import { VestaIdColumn } from './VestaIdColumn.js';
import { VestaIdSubscriber } from './VestaIdSubscriber.js';

@Entity('typeorm_orders')
class Order {
  @VestaIdColumn() id!: bigint;
  @Column('text') customer!: string;
}

@Entity('typeorm_events')
class Event {
  @PrimaryColumn('uuid') id!: string;
  @Column('text') name!: string;
}

let fixture: OrmFixture;
let dataSource: DataSource;
let orders: Repository<Order>;
let events: Repository<Event>;

beforeAll(async () => {
  fixture = await startOrmFixture(33);
  await fixture.ddl(`
    CREATE TABLE typeorm_orders (id bigint PRIMARY KEY, customer text NOT NULL);
    CREATE TABLE typeorm_events (id uuid PRIMARY KEY, name text NOT NULL);
  `);
  dataSource = new DataSource({
    type: 'postgres',
    url: fixture.postgres.url,
    entities: [Order, Event],
  });
  await dataSource.initialize();
  dataSource.subscribers.push(new VestaIdSubscriber(fixture.ids));
  orders = dataSource.getRepository(Order);
  events = dataSource.getRepository(Event);
});

afterAll(async () => {
  await dataSource?.destroy();
  await fixture?.dispose();
});

describe('Vesta ids in TypeORM (VestaIdColumn, VestaIdSubscriber)', () => {
  it('generates the id on save, above 2^53, and reads it back as that bigint', async () => {
    const saved = await orders.save(orders.create({ customer: 'ada' }));
    const read = await orders.findOneByOrFail({ id: saved.id });
    expect(saved.id).toBeGreaterThan(2n ** 53n);
    expect(typeof read.id).toBe('bigint');
    expect(read.id).toBe(saved.id);
    expect(fixture.ids.expId(read.id).machine).toBe(33);
  });

  it('writes and reads back 2^63 - 1, the largest bigint, exactly', async () => {
    await orders.insert({ id: MAX_INT8_ID, customer: 'edge' });
    const read = await orders.findOneByOrFail({ customer: 'edge' });
    expect(read.id).toBe(MAX_INT8_ID);
  });

  it('inserts a batch of 1000 rows with unique ids, each read back exactly', async () => {
    await orders.insert(
      Array.from({ length: 1000 }, (_, i) => orders.create({ customer: `batch-${i}` })),
    );
    const read = await orders.find({
      where: { customer: Like('batch-%') },
      order: { id: 'ASC' },
    });
    expect(read).toHaveLength(1000);
    expect(new Set(read.map((r) => r.id)).size).toBe(1000);
    expect(read.every((r) => typeof r.id === 'bigint')).toBe(true);
    expect(read.map((r) => r.id.toString())).toEqual(
      await fixture.idsAsText('typeorm_orders', 'customer', 'batch-'),
    );
  });

  it('stores a Vesta UUIDv7 in a uuid column and reads it back equal', async () => {
    const saved = await events.save([
      events.create({ name: 'created' }),
      events.create({ name: 'paid' }),
    ]);
    const read = await events.find({ order: { id: 'ASC' } });
    expect(read.map(({ id, name }) => ({ id, name }))).toEqual(
      saved.map(({ id, name }) => ({ id, name })),
    );
    expect(read[0]?.id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});
