import { defineOptions, objectWith, wholeNumber } from '@vesta/core/kit';
import { coordinatorUrlOption } from '@vesta/lease';
import type pg from 'pg';
import { z } from 'zod';
import { requireConnection } from '../store/requireConnection.js';

const IDENTIFIER_ERROR =
  'must be a lower-case SQL identifier (a-z, 0-9, _; at most 58), not starting with pg_';

/** A lower-case SQL identifier (quoted when used); 58 at most, so `<table>_free` still fits 63. */
const identifierOption = z
  .string({ error: IDENTIFIER_ERROR })
  .regex(/^[a-z_][a-z0-9_]{0,57}$/, { error: IDENTIFIER_ERROR })
  .refine((value) => !value.startsWith('pg_'), { error: IDENTIFIER_ERROR });

/** The one declaration of {@link PostgresSegmentStoreOptions}. */
export const postgresSegmentStoreOptions = defineOptions('PostgreSQL segment store', {
  /** The database, `postgres://user:password@host:port/database`; give `url` or `pool`. */
  url: coordinatorUrlOption(
    ['postgres', 'postgresql'],
    'postgres://user@host:port/database',
  ).optional(),
  /** A pool of the application's own to run on (never ended by the store); give `url` or `pool`. */
  pool: objectWith<pg.Pool>(
    'a pg Pool (query, connect, end)',
    'query',
    'connect',
    'end',
  ).optional(),
  /** The schema of the tables (created when missing). @default 'vesta' */
  schema: identifierOption.default('vesta'),
  /** The keys' table (created when missing); handed-back ranges go to `<table>_free`. @default 'segments' */
  table: identifierOption.default('segments'),
  /** How long a connection attempt may take. @default 5000 */
  connectTimeoutMs: wholeNumber(1, 600_000).default(5000),
  /** The deadline of each statement. @default 5000 */
  operationTimeoutMs: wholeNumber(1, 600_000).default(5000),
  /** Connections of the pool the store opens (not of one given). @default 4 */
  maxConnections: wholeNumber(1, 1000).default(4),
});

/** Options of {@link PostgresSegmentStore}, as callers give them: see {@link postgresSegmentStoreOptions} for each. */
export type PostgresSegmentStoreOptions = Readonly<
  z.input<typeof postgresSegmentStoreOptions.schema>
>;

/** Validates the options once (INVALID_OPTIONS), fills defaults, freezes them. */
export function resolvePostgresSegmentStoreOptions(
  options: PostgresSegmentStoreOptions,
): Readonly<z.output<typeof postgresSegmentStoreOptions.schema>> {
  const o = postgresSegmentStoreOptions.resolve(options);
  requireConnection('PostgreSQL segment store', o, 'pool', o.pool);
  return o;
}
