import { VestaError } from '@vesta/core';
import { importOptional } from '@vesta/core/kit';
import type { IdLineSource } from './IdLineSource.js';

/** Rows fetched from the cursor at a time: the most the audit holds of a query's result. */
const FETCH_ROWS = 10_000;

/** A row's first column as the text of an id: int8 and numeric arrive as decimal strings already. */
function cellText(cell: unknown): string {
  if (typeof cell === 'string') return cell.trim();
  if (typeof cell === 'number' || typeof cell === 'bigint') return String(cell);
  return cell === null || cell === undefined ? '' : JSON.stringify(cell);
}

/**
 * The first column of every row of `query` on the PostgreSQL at `url`, streamed through a
 * server-side cursor (`DECLARE ... NO SCROLL CURSOR` in a read-only transaction, fetched
 * {@link FETCH_ROWS} rows at a time), so the result is never held whole. Row `n` is line `n`;
 * a NULL is a blank line. `pg`, an optional peer of the CLI as the coordinators' clients are, is
 * loaded only here (PACKAGE_MISSING when it is not installed). Any failure (connection, SQL) is
 * INVALID_ARGUMENT carrying PostgreSQL's message. Runs once: a query is
 * not read twice.
 */
export function postgresIdLines(url: string, query: string): IdLineSource {
  return {
    name: 'postgres',
    rereadable: false,
    read: async (onLine) => {
      const { default: pg } = await importOptional('pg', () => import('pg'), '--postgres needs');
      const client = new pg.Client({ connectionString: url });
      try {
        await client.connect();
        await client.query('BEGIN READ ONLY');
        await client.query(`DECLARE vesta_audit NO SCROLL CURSOR FOR ${query}`);
        let line = 0;
        for (;;) {
          const { rows } = await client.query<unknown[]>({
            text: `FETCH ${FETCH_ROWS} FROM vesta_audit`,
            rowMode: 'array',
          });
          for (const row of rows) {
            line++;
            const text = cellText(row[0]);
            if (text !== '') onLine(text, line);
          }
          if (rows.length < FETCH_ROWS) break;
        }
        await client.query('COMMIT');
      } catch (error) {
        if (VestaError.is(error)) throw error;
        throw new VestaError(
          'INVALID_ARGUMENT',
          `--postgres: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      } finally {
        await client.end().catch(() => undefined);
      }
    },
  };
}
