import { defineOptions } from '@vesta/core/kit';
import { coordinatorUrlOption, leaseOptionsShape, resolveLeaseOptions } from '@vesta/lease';
import { objectWith } from '@vesta/core/kit';
import type { LeaseOptions, ResolvedLeaseOptions } from '@vesta/lease';
import type pg from 'pg';
import { z } from 'zod';

/** Options of {@link PostgresMachineIdProvider}: its own, and the lease options every coordinator shares. */
export interface PostgresMachineIdOptions extends LeaseOptions {
  /** The database, as a `postgres://user:password@host:port/database` URL. */
  readonly url: string;
  /**
   * The schema of the allocation table (created when missing); several fleets can share one
   * database under different schemas.
   * @default 'vesta'
   */
  readonly schema?: string;
  /** The allocation table (created when missing). @default 'machine_ids' */
  readonly table?: string;
  /**
   * A pool of the application's own to run on (many instances in one process, within the
   * server's `max_connections`); the provider and its leases never end it. `url` still names the
   * database in messages. When none is given, each acquisition opens its own pool of two
   * connections and ends it when its lease closes.
   */
  readonly pool?: pg.Pool;
  /**
   * Issuing stops when the lease was not renewed for this long (monotonic clock); at least twice
   * `refreshIntervalMs`. It is also the lease's expiry in the table, on the database's clock.
   * @default 8000
   */
  readonly fenceAfterMs?: number;
  /**
   * An expired id whose mark has not been raised for this long (database clock) may be taken
   * over when no free id is left. At least twice `fenceAfterMs`.
   * @default 120000
   */
  readonly reclaimAfterMs?: number;
}

/** {@link PostgresMachineIdOptions} after validation. */
export interface ResolvedPostgresMachineIdOptions extends ResolvedLeaseOptions {
  readonly url: string;
  readonly schema: string;
  readonly table: string;
  readonly pool: pg.Pool | undefined;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

const IDENTIFIER_ERROR =
  'must be a lower-case SQL identifier (a-z, 0-9, _; at most 63), not starting with pg_';

/** A lower-case SQL identifier (quoted when used, so never injected); `pg_` is PostgreSQL's. */
const identifierOption = z
  .string({ error: IDENTIFIER_ERROR })
  .regex(IDENTIFIER, { error: IDENTIFIER_ERROR })
  .refine((value) => !value.startsWith('pg_'), { error: IDENTIFIER_ERROR });

/** The declaration of {@link PostgresMachineIdOptions}. */
export const postgresMachineIdOptions = defineOptions('PostgreSQL', {
  url: coordinatorUrlOption(['postgres', 'postgresql'], 'postgres://user@host:port/database'),
  schema: identifierOption.default('vesta'),
  table: identifierOption.default('machine_ids'),
  pool: objectWith<pg.Pool>(
    'a pg Pool (query, connect, end)',
    'query',
    'connect',
    'end',
  ).optional(),
  ...leaseOptionsShape,
});

/** Validates the options once, fills defaults, freezes them. Throws INVALID_OPTIONS. */
export function resolvePostgresMachineIdOptions(
  options: PostgresMachineIdOptions,
): ResolvedPostgresMachineIdOptions {
  const o = postgresMachineIdOptions.resolve(options);
  return Object.freeze({
    ...resolveLeaseOptions(o),
    url: o.url,
    schema: o.schema,
    table: o.table,
    pool: o.pool,
  });
}
