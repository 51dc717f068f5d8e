import { objectWith } from '@vesta/core/kit';
import { VestaError } from '@vesta/core';
import {
  defineLeaseOptions,
  withUrlOptions,
  leaseOptionsShape,
  resolveLeaseOptions,
  type ResolvedLease,
} from '@vesta/lease';
import type pg from 'pg';
import { z } from 'zod';
import { readPostgresUrl, type PostgresTarget } from './pg/postgresTarget.js';

const URL_FORM =
  'postgres://user[:password]@host[:port][,host[:port]...]/database[?target_session_attrs=read-write|any&option=value...]';

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

const IDENTIFIER_ERROR =
  'must be a lower-case SQL identifier (a-z, 0-9, _; at most 63), not starting with pg_';

/** A lower-case SQL identifier (quoted when used, so never injected); `pg_` is PostgreSQL's. */
const identifierOption = z
  .string({ error: IDENTIFIER_ERROR })
  .regex(IDENTIFIER, { error: IDENTIFIER_ERROR })
  .refine((value) => !value.startsWith('pg_'), { error: IDENTIFIER_ERROR });

/**
 * The one declaration of {@link PostgresMachineIdOptions}: its own options, and the lease options
 * every coordinator shares, with the PostgreSQL meaning of those it restates.
 */
export const postgresMachineIdOptions = defineLeaseOptions('PostgreSQL', {
  /**
   * The database, as a `postgres://user:password@host:port/database` URL, or with several hosts
   * (`host1:5432,host2:5432`: a primary and its standbys), of which the one that takes writes
   * serves (libpq's `target_session_attrs=read-write`, the default with several hosts). Any other
   * option may be set in its query, as `?schema=ids&fenceAfterMs=6000`.
   */
  url: z
    .string({ error: `must be a URL like ${URL_FORM}` })
    .refine((text) => readPostgresUrl(text) !== undefined, {
      error: `must be a URL like ${URL_FORM}`,
    }),
  /**
   * The schema of the allocation table (created when missing); several fleets can share one
   * database under different schemas.
   * @default 'vesta'
   */
  schema: identifierOption.default('vesta'),
  /** The allocation table (created when missing). @default 'machine_ids' */
  table: identifierOption.default('machine_ids'),
  /**
   * A pool of the application's own to run on (many instances in one process, within the
   * server's `max_connections`); the provider and its leases never end it. `url` still names the
   * database in messages. When none is given, each acquisition opens its own pool of two
   * connections and ends it when its lease closes.
   */
  pool: objectWith<pg.Pool>(
    'a pg Pool (query, connect, end)',
    'query',
    'connect',
    'end',
  ).optional(),
  /**
   * Issuing stops when the lease was not renewed for this long (monotonic clock); at least twice
   * `refreshIntervalMs`. It is also the lease's expiry in the table, on the database's clock.
   * @default 8000
   */
  fenceAfterMs: leaseOptionsShape.fenceAfterMs,
  /**
   * An expired id whose mark has not been raised for this long (database clock) may be taken
   * over when no free id is left. At least twice `fenceAfterMs`.
   * @default 120000
   */
  reclaimAfterMs: leaseOptionsShape.reclaimAfterMs,
});

/** Options of {@link PostgresMachineIdProvider}, as callers give them: see {@link postgresMachineIdOptions} for each. */
export type PostgresMachineIdOptions = Readonly<z.input<typeof postgresMachineIdOptions.schema>>;

/** {@link PostgresMachineIdOptions} after validation: every default filled, frozen. */
export type ResolvedPostgresMachineIdOptions = ResolvedLease<
  z.output<typeof postgresMachineIdOptions.schema>
> & {
  /** Where the URL points. */
  readonly target: PostgresTarget;
};

/**
 * `options` with the options its URL's query sets (`?schema=ids&fenceAfterMs=6000`), and where
 * the URL points: INVALID_OPTIONS for an unknown parameter or one given both ways. `keys` limits
 * what the query may set (an admin takes `schema` and `table`); the provider's other options are
 * then accepted and ignored. A URL that does not read is left to the schema's check.
 */
export function withPostgresUrlOptions<O extends { readonly url: string }>(
  options: O,
  keys?: readonly string[],
): O & { readonly target?: PostgresTarget } {
  return withUrlOptions(
    'PostgreSQL',
    postgresMachineIdOptions.schema,
    readPostgresUrl,
    options,
    keys,
  );
}

/** Validates the options once, fills defaults, freezes them. Throws INVALID_OPTIONS. */
export function resolvePostgresMachineIdOptions(
  options: PostgresMachineIdOptions,
): ResolvedPostgresMachineIdOptions {
  const { target, ...given } = withPostgresUrlOptions(options);
  const resolved = resolveLeaseOptions(postgresMachineIdOptions.resolve(given));
  // The schema refused a URL that does not read before this.
  if (target === undefined) throw new VestaError('INVALID_OPTIONS', `url must be ${URL_FORM}`);
  return Object.freeze({ ...resolved, target });
}
