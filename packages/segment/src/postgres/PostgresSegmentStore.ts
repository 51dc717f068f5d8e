import type { VestaError } from '@vesta/core';
import { defineOptions, importOptional, objectWith, wholeNumber } from '@vesta/core/kit';
import { coordinatorUrlOption } from '@vesta/lease';
import type pg from 'pg';
import { z } from 'zod';
import {
  ConnectedSegmentStore,
  segmentKeyRanOut,
  unknownSegmentKey,
  type SegmentClaimRequest,
  type SegmentKeyInfo,
  type SegmentRange,
} from '../store/SegmentStore.js';

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

const FOREIGN_KEY_VIOLATION = '23503';
const OUT_OF_RANGE = '22003';

type ClaimRow = Record<'range_start' | 'range_end', string> & {
  step: number;
  handed_back: boolean;
};

const POSTGRES = {
  name: 'PostgreSQL',
  coordinator: 'postgres',
  option: 'pool',
  given: 'the given pool',
} as const;

/**
 * A `SegmentStore` on `<schema>.<table>` (a row per key) and `<schema>.<table>_free` (the ranges
 * handed back), created when missing; a claim is one statement (`SKIP LOCKED`: claims never wait).
 * @example
 * const store = new PostgresSegmentStore({ url: 'postgres://vesta@db:5432/app' });
 * await store.createKey('order', { step: 1000 });
 */
export class PostgresSegmentStore extends ConnectedSegmentStore<pg.Pool> {
  readonly #o: z.output<typeof postgresSegmentStoreOptions.schema>;
  readonly #keys: string;
  readonly #free: string;
  #pool: Promise<pg.Pool> | undefined;

  constructor(options: PostgresSegmentStoreOptions) {
    const o = postgresSegmentStoreOptions.resolve(options);
    super(POSTGRES, o.url, o.pool);
    this.#o = o;
    this.#keys = `"${o.schema}"."${o.table}"`;
    this.#free = `"${o.schema}"."${o.table}_free"`;
  }

  protected async claimRange(pool: pg.Pool, key: string, r: SegmentClaimRequest) {
    const claimed = pool.query<ClaimRow>(
      `WITH free AS (
         DELETE FROM ${this.#free} WHERE ctid = (
           SELECT ctid FROM ${this.#free} WHERE key = $1 AND range_start >= $3::bigint
           ORDER BY range_start LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING range_start, range_end
       ), fresh AS (
         UPDATE ${this.#keys} SET max = max + coalesce($2::integer, step), updated = clock_timestamp()
         WHERE key = $1 AND NOT EXISTS (SELECT 1 FROM free)
         RETURNING max - coalesce($2::integer, step) AS range_start, max AS range_end, step
       )
       SELECT f.range_start::text, f.range_end::text, k.step, true AS handed_back
         FROM free f JOIN ${this.#keys} k ON k.key = $1
       UNION ALL
       SELECT range_start::text, range_end::text, step, false FROM fresh`,
      [key, r.step ?? null, String(r.minStart ?? 0n)],
    );
    const [row] = (await claimed.catch(refused(OUT_OF_RANGE, () => segmentKeyRanOut(key)))).rows;
    if (row === undefined) throw unknownSegmentKey(key);
    const { range_start, range_end, step: keyStep, handed_back: handedBack } = row;
    return { start: BigInt(range_start), end: BigInt(range_end), keyStep, handedBack };
  }

  protected async addFree(pool: pg.Pool, key: string, range: SegmentRange): Promise<boolean> {
    await pool
      .query(
        `INSERT INTO ${this.#free} (key, range_start, range_end) VALUES ($1, $2::bigint, $3::bigint)`,
        [key, String(range.start), String(range.end)],
      )
      .catch(refused(FOREIGN_KEY_VIOLATION, () => unknownSegmentKey(key)));
    return true;
  }

  protected async addKey(pool: pg.Pool, key: string, start: bigint, step: number) {
    const r = await pool.query(
      `INSERT INTO ${this.#keys} (key, max, step) VALUES ($1, $2::bigint, $3) ON CONFLICT (key) DO NOTHING`,
      [key, String(start), step],
    );
    return r.rowCount === 1;
  }

  protected async putStep(pool: pg.Pool, key: string, step: number): Promise<boolean> {
    const r = await pool.query(
      `UPDATE ${this.#keys} SET step = $2, updated = clock_timestamp() WHERE key = $1`,
      [key, step],
    );
    return r.rowCount === 1;
  }

  protected async listKeys(pool: pg.Pool): Promise<SegmentKeyInfo[]> {
    const r = await pool.query<{ key: string; max: string; step: number }>(
      `SELECT key, max::text AS max, step FROM ${this.#keys} ORDER BY key`,
    );
    return r.rows.map((row) => ({ key: row.key, max: BigInt(row.max), step: row.step }));
  }

  protected async release(): Promise<void> {
    if (this.#o.pool !== undefined || this.#pool === undefined) return;
    const pool = await this.#pool.catch(() => undefined);
    await pool?.end();
  }

  /** The pool, once the tables exist (the pool made once, the tables tried again after a failure). */
  protected async open(): Promise<pg.Pool> {
    this.#pool ??= (async () => {
      if (this.#o.pool !== undefined) return this.#o.pool;
      const { default: pgModule } = await importOptional(
        'pg',
        () => import('pg'),
        'PostgresSegmentStore needs',
      );
      const pool = new pgModule.Pool({
        connectionString: this.#o.url,
        max: this.#o.maxConnections,
        connectionTimeoutMillis: this.#o.connectTimeoutMs,
        query_timeout: this.#o.operationTimeoutMs,
        idleTimeoutMillis: 30_000,
        allowExitOnIdle: true,
        keepAlive: true,
        application_name: 'vesta-segment',
      });
      pool.on('error', () => undefined);
      return pool;
    })();
    const pool = await this.#pool;
    // Under an advisory lock: concurrent `CREATE ... IF NOT EXISTS` race in PostgreSQL's catalog.
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [this.#keys]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${this.#o.schema}"`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.#keys} (
        key text PRIMARY KEY,
        max bigint NOT NULL,
        step integer NOT NULL CHECK (step > 0),
        updated timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.#free} (
        key text NOT NULL REFERENCES ${this.#keys} (key) ON DELETE CASCADE,
        range_start bigint NOT NULL,
        range_end bigint NOT NULL CHECK (range_end > range_start),
        handed_back timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (key, range_start)
      )`);
      await client.query('COMMIT');
      return pool;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}

/** Throws `answer()` for a PostgreSQL error of `code` (an answer, not a failure), else the error. */
const refused =
  (code: string, answer: () => VestaError) =>
  (error: unknown): never => {
    throw (error as { code?: unknown } | null)?.code === code ? answer() : error;
  };
