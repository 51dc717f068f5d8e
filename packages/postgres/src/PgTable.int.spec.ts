import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { PgTable } from './PgTable.js';

const url = inject('postgresUrl');
const pools = Array.from({ length: 12 }, () => new pg.Pool({ connectionString: url, max: 1 }));
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
});

describe('PgTable.ensure', () => {
  it('lets 12 connections create one fresh table at once, 10 times over, without an error', async () => {
    for (let round = 0; round < 10; round++) {
      const schema = `race_${process.pid}_${round}`;
      const table = (pool: pg.Pool) => new PgTable({ pool, schema, table: 'machine_ids' });
      const results = await Promise.allSettled(pools.map((p) => table(p).ensure()));
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      expect(await table(pools[0] as pg.Pool).exists()).toBe(true);
    }
  });
});
