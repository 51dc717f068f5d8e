import { objectWith } from '@vesta/core/kit';
import {
  defineCoordinatorOptions,
  defineLeaseOptions,
  type AdminOptionsOf,
  type ResolvedLease,
} from '@vesta/lease';
import type pg from 'pg';
import { z } from 'zod';
import { readPostgresUrl, type PostgresTarget } from './pg/postgresTarget.js';

const URL_FORM =
  'postgres://user[:password]@host[:port][,host[:port]...]/database[?target_session_attrs=read-write|any&option=value...]';

const IDENTIFIER_ERROR =
  'must be a lower-case SQL identifier (a-z, 0-9, _; at most 63), not starting with pg_';

/** A lower-case SQL identifier (quoted when used, so never injected); `pg_` is PostgreSQL's. */
const identifier = z
  .string({ error: IDENTIFIER_ERROR })
  .regex(/^[a-z_][a-z0-9_]{0,62}$/, { error: IDENTIFIER_ERROR })
  .refine((value) => !value.startsWith('pg_'), { error: IDENTIFIER_ERROR });

const URL_ERROR = `must be a URL like ${URL_FORM}`;

/**
 * The declaration of {@link PostgresMachineIdOptions}: PostgreSQL's own options and the shared
 * lease options (documented in `@vesta/lease`).
 */
export const postgresMachineIdOptions = defineLeaseOptions('PostgreSQL', {
  /**
   * `postgres://user:password@host:port/database`, or with several hosts (a primary and its
   * standbys: the one that takes writes serves, libpq's `target_session_attrs=read-write`). Its
   * query may set any other option (`?schema=ids&fenceAfterMs=6000`).
   */
  url: z
    .string({ error: URL_ERROR })
    .refine((t) => readPostgresUrl(t) !== undefined, { error: URL_ERROR }),
  /** The schema of the allocation table (created when missing). @default 'vesta' */
  schema: identifier.default('vesta'),
  /** The allocation table (created when missing). @default 'machine_ids' */
  table: identifier.default('machine_ids'),
  /**
   * A pool of the application's own to run on, never ended here (`url` still names the database
   * in messages). Without one, each acquisition opens a pool of two connections and ends it.
   */
  pool: objectWith<pg.Pool>(
    'a pg Pool (query, connect, end)',
    'query',
    'connect',
    'end',
  ).optional(),
});

/** Options of {@link PostgresMachineIdProvider}, as callers give them. */
export type PostgresMachineIdOptions = Readonly<z.input<typeof postgresMachineIdOptions.schema>>;

/** {@link PostgresMachineIdOptions} validated, every default filled, frozen; `target` is where the URL points. */
export type ResolvedPostgresMachineIdOptions = ResolvedLease<
  z.output<typeof postgresMachineIdOptions.schema>
> & { readonly target: PostgresTarget };

const postgresOptions = defineCoordinatorOptions('PostgreSQL', postgresMachineIdOptions, {
  url: { read: readPostgresUrl, form: URL_FORM },
  admin: ['url', 'schema', 'table'],
});

/** Validates the options once, fills defaults, freezes them. Throws INVALID_OPTIONS. */
export const resolvePostgresMachineIdOptions = (
  options: PostgresMachineIdOptions,
): ResolvedPostgresMachineIdOptions => postgresOptions.resolve(options);

/** Options of {@link PostgresAdmin}: the provider's `url`, `schema` and `table`, and `timeoutMs`. */
export type PostgresAdminOptions = AdminOptionsOf<typeof postgresOptions.admin>;

/** The admin's options, validated and frozen. Throws INVALID_OPTIONS. */
export const resolvePostgresAdminOptions = (options: PostgresAdminOptions) =>
  postgresOptions.resolveAdmin(options);
