import { hostname } from 'node:os';
import type { LeaseHolding } from '@vesta/lease';
import type pg from 'pg';

/** PostgreSQL's error codes this package tells apart. */
export const PG = {
  UNIQUE_VIOLATION: '23505',
  DUPLICATE_TABLE: '42P07',
  DUPLICATE_SCHEMA: '42P06',
  DUPLICATE_OBJECT: '42710',
  UNDEFINED_TABLE: '42P01',
  INVALID_SCHEMA: '3F000',
} as const;

/** Whether `error` is a PostgreSQL error of one of `codes`. */
export function isPgError(error: unknown, ...codes: string[]): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && codes.includes(code);
}

/**
 * Whether `error` is what the loser of a race to create a schema or table gets (PostgreSQL's
 * catalog is not guarded by IF NOT EXISTS against a concurrent creator): the object exists.
 */
export function isCatalogRace(error: unknown): boolean {
  return isPgError(
    error,
    PG.UNIQUE_VIOLATION,
    PG.DUPLICATE_TABLE,
    PG.DUPLICATE_SCHEMA,
    PG.DUPLICATE_OBJECT,
  );
}

/** One row of the allocation table, as a claim round reads it. */
export interface IdRow {
  readonly machineId: number;
  readonly owner: string | null;
  readonly instance: string | null;
  readonly markMs: number;
  readonly version: number;
  /** Held now: an instance and a lease expiry still ahead (database clock). */
  readonly live: boolean;
  /** Ms since the row was last written (database clock). */
  readonly idleMs: number;
  readonly updatedAtMs: number;
  readonly host: string | null;
  readonly pid: number | null;
}

/** What a claim or renewal writes. */
export type Holding = LeaseHolding;

const quote = (identifier: string): string => `"${identifier}"`;

/** What an init did: created the era, or found the rows it names. */
type InitOutcome = { readonly created: true } | { readonly found: readonly string[] };

/** The era's row: machine id -1, its token in `instance`, `era_open` once it may hand out ids. */
const ERA_ROW = -1;

/** An {@link IdRow}'s columns, named as its fields: a row (or `json_agg` of rows) is one as read. */
const ROW_COLUMNS = `machine_id AS "machineId", owner, instance, mark_ms::float8 AS "markMs",
  version::float8 AS version, (instance IS NOT NULL AND expires_at > clock_timestamp()) AS live,
  GREATEST(0, extract(epoch FROM clock_timestamp() - updated_at) * 1000)::float8 AS "idleMs",
  (extract(epoch FROM updated_at) * 1000)::float8 AS "updatedAtMs", host, pid`;

/**
 * `work` in one transaction on a client of its own: committed when it returns true, rolled back
 * when it returns false or throws (the error passed on).
 */
async function inTransaction<T>(
  db: pg.Pool,
  work: (client: pg.PoolClient) => Promise<{ readonly commit: boolean; readonly value: T }>,
): Promise<T> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const { commit, value } = await work(client);
    await client.query(commit ? 'COMMIT' : 'ROLLBACK');
    return value;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * The allocation table and every statement on it. One row per used machine id (`owner` the
 * holder's key, `instance` the holding start, `mark_ms` the last published time mark,
 * `expires_at` the lease's expiry on the database's clock, `version` bumped by every write),
 * and the allocation era's row (machine id -1). The era lives in the same table on purpose: a
 * table truncated, dropped or restored loses its era with its leases. Every write is one
 * statement (its own transaction), conditional on the open era and on the row's version or
 * holder: a compare-and-set that loses cleanly to a concurrent start.
 */
export class PgTable {
  readonly schema: string;
  readonly table: string;
  /** `"schema"."table"`. */
  readonly name: string;

  constructor(schema: string, table: string) {
    this.schema = schema;
    this.table = table;
    this.name = `${quote(schema)}.${quote(table)}`;
  }

  /** Whether the table exists. */
  async exists(db: pg.Pool): Promise<boolean> {
    const r = await db.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [
      `${quote(this.schema)}.${quote(this.table)}`,
    ]);
    return r.rows[0]?.t != null;
  }

  /**
   * Creates the schema and table when missing. Concurrent `CREATE ... IF NOT EXISTS` statements
   * race in PostgreSQL (the loser fails on the catalog's unique index, e.g. `type "x" already
   * exists`), so a creator takes a transaction-scoped advisory lock named after the table first:
   * one creates; the others wait for its commit on the lock in shared mode (all at once, not one
   * after the other: a fleet's first starts all find no table) and then find the table.
   */
  async ensure(db: pg.Pool): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      if (await this.exists(db)) return;
      if (await this.#create(db)) return;
    }
  }

  /** Creates the schema and table under the lock; false when another creator held it. */
  async #create(db: pg.Pool): Promise<boolean> {
    try {
      return await inTransaction(db, async (client) => {
        const r = await client.query<{ locked: boolean }>(
          'SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked',
          [this.name],
        );
        if (r.rows[0]?.locked !== true) {
          await client.query('SELECT pg_advisory_xact_lock_shared(hashtext($1))', [this.name]);
          return { commit: true, value: false };
        }
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${quote(this.schema)}`);
        await client.query(`CREATE TABLE IF NOT EXISTS ${this.name} (
          machine_id integer PRIMARY KEY CHECK (machine_id >= -1),
          owner text,
          instance text,
          mark_ms bigint NOT NULL DEFAULT 0,
          expires_at timestamptz,
          updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
          version bigint NOT NULL DEFAULT 1,
          gen_method smallint,
          type smallint,
          host text,
          pid integer,
          era_open boolean
        )`);
        return { commit: true, value: true };
      });
    } catch (error) {
      // A schema made by a process that does not take the lock (e.g. by hand) can still race.
      if (!isCatalogRace(error)) throw error;
      return true;
    }
  }

  /** The database's clock now (Unix ms). */
  async now(db: pg.Pool): Promise<number> {
    const r = await db.query<{ now: number }>(
      'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now',
    );
    return r.rows[0]?.now ?? Number.NaN;
  }

  /** The era's row: its token and whether it is open; undefined when there is none. */
  async readEra(db: pg.Pool): Promise<{ era: string; open: boolean } | undefined> {
    const r = await db.query<{ instance: string | null; era_open: boolean | null }>(
      `SELECT instance, era_open FROM ${this.name} WHERE machine_id = ${ERA_ROW}`,
    );
    const row = r.rows[0];
    if (row === undefined || row.instance === null) return undefined;
    return { era: row.instance, open: row.era_open === true };
  }

  /** Creates a closed era; false when another start created one first. */
  async createEra(db: pg.Pool, era: string): Promise<boolean> {
    const r = await db.query(
      `INSERT INTO ${this.name} (machine_id, instance, era_open, host, pid)
       VALUES (${ERA_ROW}, $1, false, $2, $3) ON CONFLICT (machine_id) DO NOTHING`,
      [era, hostname(), process.pid],
    );
    return r.rowCount === 1;
  }

  /**
   * Creates the era `era` OPEN if and only if the table holds no row at all (the admin's
   * declaration that the table is new): in one transaction that locks the table against every
   * write (SHARE ROW EXCLUSIVE: reads go on, claims and a concurrent init wait) before it looks,
   * so nothing can land between the look and the insert. Returns `created`, or the rows found (at
   * most `limit`) as `machine id N (owner ...)` and `the allocation era (open|closed)`.
   */
  async initEra(db: pg.Pool, era: string, limit: number): Promise<InitOutcome> {
    return inTransaction<InitOutcome>(db, async (client) => {
      await client.query(`LOCK TABLE ${this.name} IN SHARE ROW EXCLUSIVE MODE`);
      const r = await client.query<{ machine_id: number; owner: string | null; open: boolean }>(
        `SELECT machine_id, owner, era_open AS open FROM ${this.name} ORDER BY machine_id LIMIT $1`,
        [limit],
      );
      if (r.rows.length > 0) {
        const found = r.rows.map((row) =>
          row.machine_id === ERA_ROW
            ? `the allocation era (${row.open ? 'open' : 'closed'})`
            : `machine id ${row.machine_id} (owner ${row.owner ?? 'none'})`,
        );
        return { commit: false, value: { found } };
      }
      await client.query(
        `INSERT INTO ${this.name} (machine_id, instance, era_open, host, pid) VALUES (${ERA_ROW}, $1, true, $2, $3)`,
        [era, hostname(), process.pid],
      );
      return { commit: true, value: { created: true } };
    });
  }

  /** Opens the era `era` (idempotent). */
  async openEra(db: pg.Pool, era: string): Promise<void> {
    await db.query(
      `UPDATE ${this.name} SET era_open = true, updated_at = clock_timestamp()
       WHERE machine_id = ${ERA_ROW} AND instance = $1`,
      [era],
    );
  }

  /** The rows of `min`-`max`, and those naming `key` anywhere. */
  async readRows(db: pg.Pool, min: number, max: number, key: string): Promise<IdRow[]> {
    const r = await db.query<IdRow>(
      `SELECT ${ROW_COLUMNS} FROM ${this.name}
       WHERE machine_id >= 0 AND ((machine_id BETWEEN $1 AND $2) OR owner = $3)
       ORDER BY machine_id`,
      [min, max, key],
    );
    return r.rows;
  }

  /**
   * What a claim round plans on, in one statement that sends little whatever the fleet's size:
   * the ids of `min`-`max` held live (ids only), and the whole rows of the others and of those
   * naming `key` anywhere (a live row's fields are never needed, except the key's own).
   */
  async readClaimRows(
    db: pg.Pool,
    min: number,
    max: number,
    key: string,
  ): Promise<{ readonly liveIds: readonly number[]; readonly rows: readonly IdRow[] }> {
    const r = await db.query<{ live_ids: number[]; rows: IdRow[] }>(
      `SELECT
         coalesce(array_agg("machineId") FILTER (WHERE live AND owner IS DISTINCT FROM $3), '{}') AS live_ids,
         coalesce(json_agg(r) FILTER (WHERE NOT live OR owner = $3), '[]') AS rows
       FROM (SELECT ${ROW_COLUMNS} FROM ${this.name}
             WHERE machine_id >= 0 AND ((machine_id BETWEEN $1 AND $2) OR owner = $3)) r`,
      [min, max, key],
    );
    const row = r.rows[0];
    return { liveIds: row?.live_ids ?? [], rows: row?.rows ?? [] };
  }

  /** Every id row (the admin's list). */
  async readAll(db: pg.Pool): Promise<IdRow[]> {
    const r = await db.query<IdRow>(
      `SELECT ${ROW_COLUMNS} FROM ${this.name} WHERE machine_id >= 0 ORDER BY machine_id`,
    );
    return r.rows;
  }

  /**
   * Claims `machineId` under `era`: inserts its row when `version` is undefined (never used),
   * else updates the row still at `version` and not held live. Returns the new version, or
   * undefined when a concurrent start won (or the era is gone).
   */
  async claim(
    db: pg.Pool,
    era: string,
    machineId: number,
    version: number | undefined,
    h: Holding,
    expireAfterMs: number,
  ): Promise<number | undefined> {
    const params = [
      machineId,
      h.owner,
      h.instance,
      h.markMs,
      expireAfterMs,
      h.genMethod,
      h.type,
      hostname(),
      process.pid,
      era,
    ];
    const eraOpen = `EXISTS (SELECT 1 FROM ${this.name} WHERE machine_id = ${ERA_ROW} AND instance = $10 AND era_open)`;
    const r =
      version === undefined
        ? await db.query<{ version: number }>(
            `INSERT INTO ${this.name} (machine_id, owner, instance, mark_ms, expires_at, updated_at, version, gen_method, type, host, pid)
             SELECT $1, $2, $3, $4, clock_timestamp() + $5 * interval '1 millisecond', clock_timestamp(), 1, $6, $7, $8, $9
             WHERE ${eraOpen}
             ON CONFLICT (machine_id) DO NOTHING
             RETURNING version::float8 AS version`,
            params,
          )
        : await db.query<{ version: number }>(
            `UPDATE ${this.name} SET owner = $2, instance = $3, mark_ms = $4,
               expires_at = clock_timestamp() + $5 * interval '1 millisecond', updated_at = clock_timestamp(),
               version = version + 1, gen_method = $6, type = $7, host = $8, pid = $9
             WHERE machine_id = $1 AND version = $11
               AND (instance IS NULL OR expires_at <= clock_timestamp()) AND ${eraOpen}
             RETURNING version::float8 AS version`,
            [...params, version],
          );
    return r.rows[0]?.version;
  }

  /**
   * Renews the lease of `instance` on `machineId` under `era`: publishes `markMs` (never lowering
   * the stored mark: a renewal given up by its turn may land after a later one) and moves the
   * expiry. False when the row no longer names this holder or the era is gone: the lease is lost.
   */
  async renew(
    db: pg.Pool,
    era: string,
    machineId: number,
    instance: string,
    markMs: number,
    expireAfterMs: number,
  ): Promise<boolean> {
    const r = await db.query(
      `UPDATE ${this.name} SET mark_ms = GREATEST(mark_ms, $3), expires_at = clock_timestamp() + $4 * interval '1 millisecond',
         updated_at = clock_timestamp(), version = version + 1
       WHERE machine_id = $1 AND instance = $2
         AND EXISTS (SELECT 1 FROM ${this.name} WHERE machine_id = ${ERA_ROW} AND instance = $5 AND era_open)`,
      [machineId, instance, markMs, expireAfterMs, era],
    );
    return r.rowCount === 1;
  }

  /**
   * Takes back a cached lease (started while the database was down): only if the row still
   * names `owner`, nobody holds it live, its mark is not above the cached one, and the era the
   * cache was confirmed under is still the open one. False otherwise: the lease is lost.
   */
  async reconfirm(
    db: pg.Pool,
    era: string,
    machineId: number,
    h: Holding,
    cachedMarkMs: number,
    expireAfterMs: number,
  ): Promise<number | undefined> {
    const r = await db.query<{ version: number }>(
      `UPDATE ${this.name} SET instance = $3, mark_ms = GREATEST(mark_ms, $4),
         expires_at = clock_timestamp() + $5 * interval '1 millisecond', updated_at = clock_timestamp(),
         version = version + 1, host = $7, pid = $8
       WHERE machine_id = $1 AND owner = $2 AND mark_ms <= $6
         AND (instance IS NULL OR expires_at <= clock_timestamp())
         AND EXISTS (SELECT 1 FROM ${this.name} WHERE machine_id = ${ERA_ROW} AND instance = $9 AND era_open)
       RETURNING version::float8 AS version`,
      [
        machineId,
        h.owner,
        h.instance,
        h.markMs,
        expireAfterMs,
        cachedMarkMs,
        hostname(),
        process.pid,
        era,
      ],
    );
    return r.rows[0]?.version;
  }

  /**
   * Ends the lease of `instance`: publishes the final mark (lower than the last renewal's, which
   * ran ahead: the service is closed and issued nothing past it), clears the holder and expiry;
   * keeps the owner (the key gets the id back) unless `keepOwner` is false (released at once).
   */
  async release(
    db: pg.Pool,
    era: string,
    machineId: number,
    instance: string,
    markMs: number,
    keepOwner: boolean,
  ): Promise<boolean> {
    const r = await db.query(
      `UPDATE ${this.name} SET mark_ms = $3, instance = NULL, expires_at = NULL,
         owner = CASE WHEN $4 THEN owner ELSE NULL END, updated_at = clock_timestamp(), version = version + 1
       WHERE machine_id = $1 AND instance = $2
         AND EXISTS (SELECT 1 FROM ${this.name} WHERE machine_id = ${ERA_ROW} AND instance = $5)`,
      [machineId, instance, markMs, keepOwner, era],
    );
    return r.rowCount === 1;
  }

  /** The admin's release: clears owner, holder and expiry of the row still at `version`. */
  async adminRelease(db: pg.Pool, machineId: number, version: number): Promise<boolean> {
    const r = await db.query(
      `UPDATE ${this.name} SET owner = NULL, instance = NULL, expires_at = NULL, version = version + 1
       WHERE machine_id = $1 AND version = $2`,
      [machineId, version],
    );
    return r.rowCount === 1;
  }
}
