import { defineOptions, leaseOptionsShape, resolveLeaseOptions } from '@vesta/core/kit';
import type { ResolvedLeaseOptions } from '@vesta/core/kit';
import type { Clock, Logger, TimeSource } from '@vesta/core';
import { z } from 'zod';

/** Options of {@link PostgresMachineIdProvider}. */
export interface PostgresMachineIdOptions {
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
   * This instance's stable identity: the same key gets its old machine id back after a restart.
   * @default the key kept in `stateDir` (created on first start), else a random key per start
   */
  readonly key?: string;
  /**
   * Where the key (when none is given) and the last confirmed lease are kept, for stable
   * identity and for starting while PostgreSQL is down.
   * @default undefined (no cache, no fallback)
   */
  readonly stateDir?: string;
  /** Start on the lease cached in `stateDir` when PostgreSQL cannot be reached. @default true */
  readonly fallbackToCache?: boolean;
  /** How long a connection attempt may take. @default 5000 */
  readonly connectTimeoutMs?: number;
  /** Deadline of each statement (the connection is dropped after it). @default 5000 */
  readonly operationTimeoutMs?: number;
  /** How often the lease is renewed (its mark and expiry raised). @default 2000 */
  readonly refreshIntervalMs?: number;
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
  /** Largest allowed difference between this host's clock and the database's, at start. @default 1000 */
  readonly maxClockSkewMs?: number;
  /** At start, wait at most this long for the clock to pass the id's stored mark. @default 10000 */
  readonly maxClockWaitMs?: number;
  /**
   * How long a start waits for the lease of this key's previous holder (a crash) to expire
   * before taking another id.
   * @default fenceAfterMs + 1000
   */
  readonly ownerWaitMs?: number;
  /**
   * How long a start waits (monotonic clock) after finding no open allocation era in the table
   * (a new table, or one truncated, dropped or restored) before any id is handed out: every
   * holder of the lost rows has fenced itself by then. 0 only for tests or a table never used.
   * @default fenceAfterMs + 2 × maxClockSkewMs + 1000
   */
  readonly eraWaitMs?: number;
  /** The wall clock (Unix ms). Give `clock` or `time`, not both. @default Date.now */
  readonly clock?: Clock;
  /**
   * Where the lease reads time and sets timers (marks, fencing bound, waits, renewals); tests
   * pass a manual one. Give `clock` or `time`, not both.
   * @default systemTimeSource
   */
  readonly time?: TimeSource;
  /** Where warnings go. @default stderr */
  readonly logger?: Logger;
}

/** {@link PostgresMachineIdOptions} after validation. */
export interface ResolvedPostgresMachineIdOptions extends ResolvedLeaseOptions {
  readonly url: string;
  readonly schema: string;
  readonly table: string;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

const IDENTIFIER_ERROR =
  'must be a lower-case SQL identifier (a-z, 0-9, _; at most 63), not starting with pg_';

/** A lower-case SQL identifier (quoted when used, so never injected); `pg_` is PostgreSQL's. */
export const identifierOption = z
  .string({ error: IDENTIFIER_ERROR })
  .regex(IDENTIFIER, { error: IDENTIFIER_ERROR })
  .refine((value) => !value.startsWith('pg_'), { error: IDENTIFIER_ERROR });

/** A `postgres://` or `postgresql://` URL. */
export const postgresUrlOption = z.string({ error: 'must be a postgres:// URL' }).refine(
  (value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && url.host !== '';
    } catch {
      return false;
    }
  },
  { error: 'must be a postgres://user@host:port/database URL' },
);

/** The declaration of {@link PostgresMachineIdOptions}. */
export const postgresMachineIdOptions = defineOptions('PostgreSQL', {
  url: postgresUrlOption,
  schema: identifierOption.default('vesta'),
  table: identifierOption.default('machine_ids'),
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
  });
}
