import { randomUUID } from 'node:crypto';
import { startPostgresServer } from '@vesta/testkit';
import pg from 'pg';
import {
  conformanceProfiles,
  defineMachineIdProviderHarness,
  type MachineIdProviderHarness,
} from '@vesta/testkit/conformance';
import { PostgresAdmin } from '../postgresCoordinator.js';
import { PostgresMachineIdProvider } from '../PostgresMachineIdProvider.js';
import { postgresOptions } from '../PostgresMachineIdOptions.js';

/** Generous connection deadlines: the suite must hold on a loaded machine. */
const PROFILES = conformanceProfiles({ connectTimeoutMs: 5000, operationTimeoutMs: 2000 });

const url = (address: string): string => `postgres://vesta@${address}/vesta`;

/** The conformance harness of {@link PostgresMachineIdProvider}: a namespace is a schema. */
export const postgresHarness: MachineIdProviderHarness = defineMachineIdProviderHarness({
  name: 'PostgreSQL',
  startCoordinator: () => startPostgresServer(),
  namespace: () => `ns_${randomUUID().slice(0, 8)}`,
  profiles: PROFILES,
  defaultEraWaitMs: (timings) =>
    postgresOptions.resolve({ url: 'postgres://x@127.0.0.1:1/x', ...timings }).eraWaitMs,
  createProvider: (address, schema, settings) =>
    new PostgresMachineIdProvider({ url: url(address), schema, ...settings }),
  admin: (address, namespace) => new PostgresAdmin({ url: url(address), schema: namespace }),
  dump: async (address, schema) => {
    const client = new pg.Client({ connectionString: url(address) });
    await client.connect();
    try {
      const tables = await client.query<{ name: string }>(
        `SELECT format('%I.%I', table_schema, table_name) AS name FROM information_schema.tables
         WHERE table_schema = $1 ORDER BY table_name`,
        [schema],
      );
      const rows: string[] = [];
      for (const { name } of tables.rows) {
        const r = await client.query(`SELECT * FROM ${name} ORDER BY 1`);
        rows.push(...r.rows.map((row) => `${name} ${JSON.stringify(row)}`));
      }
      return rows;
    } finally {
      await client.end();
    }
  },
});
