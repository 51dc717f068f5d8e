import { createEmbeddedIdService, type EmbeddedIdService } from '@vesta/embedded';
import pg from 'pg';
import { startPostgresServer, type PostgresServer } from '@vesta/testkit';

/** A PostgreSQL of the spec's own (127.0.0.1, a free port) and an embedded id service. */
export interface OrmFixture {
  readonly postgres: PostgresServer;
  readonly ids: EmbeddedIdService;
  /** Runs the statements in the `vesta` database (the tables of the spec). */
  ddl(statements: string): Promise<void>;
  /**
   * The ids of a table's rows whose `label` column starts with `prefix`, in id order, as
   * PostgreSQL prints them (`id::text`), read past every ORM: what the database really holds.
   */
  idsAsText(table: string, label: string, prefix: string): Promise<string[]>;
  dispose(): Promise<void>;
}

export async function startOrmFixture(machineId: number): Promise<OrmFixture> {
  const postgres = await startPostgresServer();
  const ids = await createEmbeddedIdService({ machineId });
  const query = async (
    text: string,
    values: unknown[] = [],
  ): Promise<Record<string, unknown>[]> => {
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    try {
      return (await client.query<Record<string, unknown>>(text, values)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    postgres,
    ids,
    ddl: async (statements) => {
      await query(statements);
    },
    idsAsText: async (table, label, prefix) =>
      (
        await query(`SELECT id::text AS id FROM ${table} WHERE ${label} LIKE $1 ORDER BY id`, [
          `${prefix}%`,
        ])
      ).map((row) => String(row.id)),
    dispose: async () => {
      await ids.close();
      await postgres.dispose();
    },
  };
}
