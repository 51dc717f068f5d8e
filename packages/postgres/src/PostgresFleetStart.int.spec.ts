import { randomUUID } from 'node:crypto';
import { startPostgresServer } from '@vesta/testkit';
import { describeFleetStart } from '@vesta/testkit/conformance';
import pg from 'pg';
import { PostgresAdmin } from './postgresCoordinator.js';
import { PostgresMachineIdProvider } from './PostgresMachineIdProvider.js';

/**
 * The process's one pool: 1,000 starts cannot each hold a connection (the server allows 200, a
 * default install 100), so they share a bounded pool as instances in one process would.
 */
const POOL_SIZE = 20;
let pool: pg.Pool | undefined;

const url = (address: string): string => `postgres://vesta@${address}/vesta`;

describeFleetStart({
  name: 'PostgreSQL',
  startCoordinator: () => startPostgresServer(),
  namespace: () => `fleet_${randomUUID().slice(0, 8)}`,
  createProvider: (address, schema, key) => {
    pool ??= new pg.Pool({
      connectionString: url(address),
      max: POOL_SIZE,
      connectionTimeoutMillis: 15_000,
      query_timeout: 15_000,
    });
    // An idle connection the server drops (when it stops after the test) is no test failure.
    pool.on('error', () => undefined);
    return new PostgresMachineIdProvider({ url: url(address), schema, key, pool, eraWaitMs: 0 });
  },
  list: (address, schema) => new PostgresAdmin({ url: url(address), schema }).list(),
  dispose: async () => {
    await pool?.end();
  },
});
