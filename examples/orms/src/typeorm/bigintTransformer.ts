import type { ValueTransformer } from 'typeorm';

/**
 * A TypeORM column transformer for a PostgreSQL `bigint`: TypeORM hands an entity the string
 * node-postgres reads (its `bigint` columns are `string`s); this one makes it a JavaScript
 * `bigint`, so an id above 2^53 is never a `number` and never silently a string. Writing needs
 * nothing: node-postgres sends a `bigint` as its decimal text.
 */
export const bigintTransformer: ValueTransformer = {
  to: (value: unknown) => value,
  from: (value: unknown) =>
    value === null || value === undefined ? value : BigInt(value as string | bigint),
};
