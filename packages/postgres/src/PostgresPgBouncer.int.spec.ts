import { randomUUID } from 'node:crypto';
import { startPgBouncer, startPostgresServer, type PgBouncer } from '@vesta/testkit';
import { describeFleetStart } from '@vesta/testkit/conformance';
import { PostgresAdmin } from './postgresCoordinator.js';
import { PostgresMachineIdProvider } from './PostgresMachineIdProvider.js';

/**
 * What the README tells a large fleet to run: PgBouncer in transaction mode in front of the
 * database, every instance with its own small pool (as separate processes would have) through it.
 * 1,000 starts open up to 2,000 client connections to the bouncer, which runs them on 20 server
 * connections: the claims are single statements or short transactions, the table's creation a
 * transaction-scoped advisory lock, nothing that needs a session of its own.
 */
const url = (address: string): string => `postgres://vesta@${address}/vesta`;

describeFleetStart({
  name: 'PostgreSQL through PgBouncer (transaction mode)',
  startCoordinator: async (): Promise<PgBouncer> => {
    const server = await startPostgresServer();
    const bouncer = await startPgBouncer(server, 'transaction');
    return Object.assign(Object.create(bouncer) as PgBouncer, {
      dispose: async () => {
        await bouncer.dispose();
        await server.dispose();
      },
    });
  },
  namespace: () => `bouncer_${randomUUID().slice(0, 8)}`,
  createProvider: (address, schema, key) =>
    new PostgresMachineIdProvider({
      url: url(address),
      schema,
      key,
      eraWaitMs: 0,
      connectTimeoutMs: 15_000,
      operationTimeoutMs: 15_000,
    }),
  list: (address, schema) => new PostgresAdmin({ url: url(address), schema }).list(),
});
