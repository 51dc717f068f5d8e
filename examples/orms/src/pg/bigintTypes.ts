import pg from 'pg';

const INT8 = 20;
const INT8_ARRAY = 1016;

// Typed for the builtin oids only (the array types have no name in @types/pg).
const defaultParser = pg.types.getTypeParser as (
  oid: number,
  format?: 'text' | 'binary',
) => (text: string) => unknown;

const parseInt8Array = (text: string): (bigint | null)[] =>
  (defaultParser(INT8_ARRAY, 'text')(text) as (string | null)[]).map((value) =>
    value === null ? null : BigInt(value),
  );

/**
 * The type parsers of a node-postgres `Pool` or `Client` that read PostgreSQL's `bigint` (int8)
 * and `bigint[]` as JavaScript `bigint`s: node-postgres reads them as strings by default, and
 * `Number(...)` on one silently rounds every id above 2^53.
 *
 * Per pool, not `pg.types.setTypeParser(20, ...)`, which would change every pool of the process
 * (and every library's). Writing needs nothing: node-postgres sends a `bigint` as its decimal text.
 *
 * @example
 * const pool = new pg.Pool({ connectionString, types: bigintTypes });
 * (await pool.query('SELECT 9223372036854775807::int8 AS id')).rows[0].id; // 9223372036854775807n
 */
export const bigintTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8) return (text: string) => BigInt(text);
    if (oid === INT8_ARRAY) return parseInt8Array;
    return defaultParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};
