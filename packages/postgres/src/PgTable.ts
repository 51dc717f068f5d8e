import { hostname } from 'node:os';
import { decodeJournalEntry, encodeJournalEntry } from '@vesta/lease';
import type { LeaseEraState, LeaseEraStore, LeaseHolding, LeaseJournalEntry } from '@vesta/lease';
import type { LeaseStoreInitOutcome } from '@vesta/lease';
import pg from 'pg';
import type { ResolvedPostgresMachineIdOptions as Resolved } from './PostgresMachineIdOptions.js';

const codeOf = (error: unknown): unknown => (error as { code?: unknown } | null)?.code;
/** The loser of a race to create a schema or table gets one (IF NOT EXISTS does not guard it). */
const isCatalogRace = (error: unknown): boolean =>
  ['23505', '42P07', '42P06', '42710'].includes(codeOf(error) as string);
/** No rows when the table (or its schema) is gone, a store that lost its data; else rethrows. */
const noTable = (error: unknown): { rows: never[] } => {
  if (codeOf(error) !== '42P01' && codeOf(error) !== '3F000') throw error;
  return { rows: [] };
};

/** One row of the allocation table; `live` and `idleMs` on the database's clock. */
export type IdRow = Readonly<
  Record<'machineId' | 'markMs' | 'version' | 'idleMs' | 'updatedAtMs', number> &
    Record<'owner' | 'instance' | 'host', string | null> & { live: boolean; pid: number | null }
>;

/** The era's row: machine id -1, its token in `instance`, `era_open` once it may hand out ids. */
const ERA_ROW = -1;
/** An {@link IdRow}'s columns, named as its fields: a row (or `json_agg` of rows) is one as read. */
const ROW_COLUMNS = `machine_id AS "machineId", owner, instance, mark_ms::float8 AS "markMs",
  version::float8 AS version, (instance IS NOT NULL AND expires_at > clock_timestamp()) AS live,
  GREATEST(0, extract(epoch FROM clock_timestamp() - updated_at) * 1000)::float8 AS "idleMs",
  (extract(epoch FROM updated_at) * 1000)::float8 AS "updatedAtMs", host, pid`;

const IDLE_CLOSED = 'PostgreSQL closed an idle connection';
const HELD = { live: true, owner: undefined, idleMs: 0 };
const COLUMNS = `(machine_id integer PRIMARY KEY CHECK (machine_id >= -1), owner text, instance text,
  mark_ms bigint NOT NULL DEFAULT 0, expires_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(), version bigint NOT NULL DEFAULT 1,
  gen_method smallint, type smallint, host text, pid integer, era_open boolean)`;
const JOURNAL_COLUMNS = '(id bigserial PRIMARY KEY, entry text NOT NULL)';
const EXPIRES = `clock_timestamp() + $5 * interval '1 millisecond'`;

/** A pg `Client` for several hosts: each connects to the one that served last, else the next. */
function primaryClient({ hosts, readWrite, where }: Resolved['target']): typeof pg.Client {
  let serving = 0;
  return class PrimaryClient extends pg.Client {
    readonly #index = serving % hosts.length;

    constructor(config?: string | pg.ClientConfig) {
      const connectionString = hosts[serving % hosts.length];
      super({ ...(typeof config === 'object' ? config : {}), connectionString });
    }

    override connect(): Promise<pg.Client>;
    override connect(callback: (err: Error) => void): void;
    override connect(callback?: (err: Error) => void): Promise<pg.Client> | void {
      const connected = this.#connect();
      if (callback === undefined) return connected;
      connected.then(() => callback(undefined as never), callback);
    }

    async #connect(): Promise<pg.Client> {
      try {
        await super.connect();
        const sql = 'SELECT pg_is_in_recovery() AS standby';
        if (readWrite && (await this.query(sql)).rows[0]?.standby !== false) {
          const which = hosts.length > 1 ? `host ${this.#index + 1} of ${where}` : where;
          throw new Error(`${which} is a standby (read-only)`);
        }
        serving = this.#index;
        return this;
      } catch (error) {
        if (serving === this.#index) serving = this.#index + 1;
        await this.end().catch(() => undefined);
        throw error;
      }
    }
  };
}

async function inTransaction<T>(db: pg.Pool, work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const value = await work(client);
    await client.query('COMMIT');
    return value;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** A row per used machine id and the era's, so a table truncated or restored loses its era with its leases. */
export class PgTable {
  readonly db: pg.Pool;
  readonly name: string;
  /** The lease journal's table. */
  readonly journal: string;

  constructor(
    readonly o: Pick<Resolved, 'schema' | 'table'> &
      Partial<Pick<Resolved, 'pool' | 'target' | 'logger' | 'fenceAfterMs'>> &
      Partial<Pick<Resolved, 'connectTimeoutMs' | 'operationTimeoutMs'>>,
  ) {
    this.name = `"${o.schema}"."${o.table}"`;
    this.journal = `"${o.schema}"."${o.table}_history"`;
    // Two connections: a renewal never queues behind a slow statement for long.
    const own = { max: 2, idleTimeoutMillis: 30_000, allowExitOnIdle: true, keepAlive: true };
    const pool = { ...own, connectionTimeoutMillis: o.connectTimeoutMs, application_name: 'vesta' };
    const Client = o.pool ? pg.Client : primaryClient(o.target as Resolved['target']);
    const idle = (error: Error) => o.logger?.info({ error: String(error) }, IDLE_CLOSED);
    const made = () => new pg.Pool({ ...pool, Client, query_timeout: o.operationTimeoutMs });
    this.db = o.pool ?? made().on('error', idle);
  }

  /** A first statement, through the target's hosts in turn while one refuses or is a standby. */
  async connect(tries = this.o.pool ? 1 : (this.o.target?.hosts.length ?? 1)): Promise<void> {
    await this.now().catch((error: unknown) => {
      if (tries <= 1) throw error;
      return this.connect(tries - 1);
    });
  }

  async close(): Promise<void> {
    if (this.o.pool === undefined) await this.db.end().catch(() => undefined);
  }

  async exists(name = this.name): Promise<boolean> {
    const r = await this.db.query('SELECT to_regclass($1)::text AS t', [name]);
    return r.rows[0]?.t != null;
  }

  /** Creates the table (or the journal's) when missing; of racing creators, one takes a lock. */
  async ensure(name = this.name): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      if ((await this.exists(name)) || (await this.#create(name))) return;
    }
  }

  async #create(name: string): Promise<boolean> {
    return inTransaction(this.db, async (client) => {
      const lock = 'SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked';
      if ((await client.query(lock, [name])).rows[0]?.locked !== true) {
        await client.query('SELECT pg_advisory_xact_lock_shared(hashtext($1))', [name]);
        return false;
      }
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${this.o.schema}"`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${name} ${name === this.name ? COLUMNS : JOURNAL_COLUMNS}`,
      );
      return true;
    }).catch((error: unknown) => {
      // A schema made by a process that does not take the lock (e.g. by hand) can still race.
      if (!isCatalogRace(error)) throw error;
      return true;
    });
  }

  async now(): Promise<number> {
    const sql = 'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now';
    return ((await this.db.query(sql)).rows[0]?.now as number | undefined) ?? Number.NaN;
  }

  /** Every lease write is conditional on the era (token `$p`), open unless said otherwise. */
  #inEra(p: string, open = true): string {
    const where = `machine_id = ${ERA_ROW} AND instance = ${p}${open ? ' AND era_open' : ''}`;
    return `EXISTS (SELECT 1 FROM ${this.name} WHERE ${where})`;
  }

  readonly eraStore: LeaseEraStore<LeaseEraState> = {
    readEra: async () => {
      const sql = `SELECT instance, era_open FROM ${this.name} WHERE machine_id = ${ERA_ROW}`;
      const { rows } = await this.db.query(sql).catch(noTable);
      const row = rows[0] as { instance: string | null; era_open: boolean | null } | undefined;
      return row?.instance == null ? undefined : { era: row.instance, open: row.era_open === true };
    },
    createEra: async (era) => (await this.#insertEra(this.db, era, false)).rowCount === 1,
    openEra: async ({ era }) => {
      const sql = `UPDATE ${this.name} SET era_open = true, updated_at = clock_timestamp()`;
      await this.db.query(`${sql} WHERE machine_id = ${ERA_ROW} AND instance = $1`, [era]);
    },
  };

  #insertEra(db: pg.Pool | pg.PoolClient, era: string, open: boolean) {
    const sql = `INSERT INTO ${this.name} (machine_id, instance, era_open, host, pid)
      VALUES (${ERA_ROW}, $1, $2, $3, $4) ON CONFLICT (machine_id) DO NOTHING`;
    return db.query(sql, [era, open, hostname(), process.pid]);
  }

  /** Creates the table when missing, then the era open only if it holds no row (under a lock). */
  async initEra(era: string, limit: number): Promise<LeaseStoreInitOutcome> {
    await this.ensure();
    return inTransaction<LeaseStoreInitOutcome>(this.db, async (client) => {
      await client.query(`LOCK TABLE ${this.name} IN SHARE ROW EXCLUSIVE MODE`);
      const r = await client.query<{ found: string }>(
        `SELECT CASE WHEN machine_id = ${ERA_ROW}
           THEN 'the allocation era (' || CASE WHEN era_open THEN 'open' ELSE 'closed' END || ')'
           ELSE 'machine id ' || machine_id || ' (owner ' || coalesce(owner, 'none') || ')' END AS found
         FROM ${this.name} ORDER BY machine_id LIMIT $1`,
        [limit],
      );
      if (r.rows.length > 0) return { found: r.rows.map((row) => row.found) };
      await this.#insertEra(client, era, true);
      return { created: true };
    });
  }

  async readRows(machineId?: number): Promise<IdRow[]> {
    const where = 'machine_id >= 0 AND ($1::integer IS NULL OR machine_id = $1)';
    const sql = `SELECT ${ROW_COLUMNS} FROM ${this.name} WHERE ${where} ORDER BY machine_id`;
    return (await this.db.query<IdRow>(sql, [machineId ?? null]).catch(noTable)).rows;
  }

  /** One statement, small for any fleet: live rows as ids; the key's own id is its latest row. */
  async readClaimRows(min: number, max: number, key: string) {
    const r = await this.db.query<{ live_ids: number[]; rows: IdRow[] }>(
      `SELECT coalesce(array_agg("machineId") FILTER (WHERE live AND owner IS DISTINCT FROM $3), '{}') AS live_ids,
         coalesce(json_agg(r) FILTER (WHERE NOT live OR owner = $3), '[]') AS rows
       FROM (SELECT ${ROW_COLUMNS} FROM ${this.name}
             WHERE machine_id >= 0 AND ((machine_id BETWEEN $1 AND $2) OR owner = $3)) r`,
      [min, max, key],
    );
    const { live_ids = [], rows = [] } = r.rows[0] ?? {};
    const held = live_ids.map((machineId) => ({ machineId, ...HELD }));
    const own = rows.filter((row) => row.owner === key);
    own.sort((a, b) => b.updatedAtMs - a.updatedAtMs);
    const byId = new Map(rows.map((row) => [row.machineId, row]));
    return { byId, rows: [...rows, ...held], ownId: own[0]?.machineId };
  }

  /** Inserts `id`'s row (`version` undefined), else updates it if still at `version` and not live. */
  async claim(era: string, id: number, version: number | undefined, h: LeaseHolding) {
    const row = [id, h.owner, h.instance, h.markMs, this.o.fenceAfterMs, h.genMethod, h.type];
    const [eraOpen, fresh] = [this.#inEra('$10'), version === undefined];
    const r = await this.db.query<{ version: number }>(
      fresh
        ? `INSERT INTO ${this.name} (machine_id, owner, instance, mark_ms, expires_at, updated_at, version, gen_method, type, host, pid)
           SELECT $1, $2, $3, $4, ${EXPIRES}, clock_timestamp(), 1, $6, $7, $8, $9 WHERE ${eraOpen}
           ON CONFLICT (machine_id) DO NOTHING RETURNING version::float8 AS version`
        : `UPDATE ${this.name} SET owner = $2, instance = $3, mark_ms = $4, expires_at = ${EXPIRES},
             updated_at = clock_timestamp(), version = version + 1, gen_method = $6, type = $7, host = $8, pid = $9
           WHERE machine_id = $1 AND version = $11
             AND (instance IS NULL OR expires_at <= clock_timestamp()) AND ${eraOpen} RETURNING version::float8 AS version`,
      [...row, hostname(), process.pid, era, ...(fresh ? [] : [version])],
    );
    return r.rows[0]?.version;
  }

  /** Never lowers the stored mark: a renewal given up by its turn may land after a later one. */
  async renew(era: string, id: number, instance: string, markMs: number) {
    const sql = `UPDATE ${this.name} SET mark_ms = GREATEST(mark_ms, $3), expires_at = ${EXPIRES},
        updated_at = clock_timestamp(), version = version + 1
      WHERE machine_id = $1 AND instance = $2 AND ${this.#inEra('$4')} RETURNING version::float8 AS version`;
    const params = [id, instance, markMs, era, this.o.fenceAfterMs];
    const r = await this.db.query<{ version: number }>(sql, params).catch(noTable);
    return r.rows[0]?.version;
  }

  async release(era: string, id: number, instance: string, markMs: number, keepOwner: boolean) {
    const sql = `UPDATE ${this.name} SET mark_ms = $3, instance = NULL, expires_at = NULL,
        owner = CASE WHEN $4 THEN owner ELSE NULL END, updated_at = clock_timestamp(), version = version + 1
      WHERE machine_id = $1 AND instance = $2 AND ${this.#inEra('$5', false)}`;
    return (await this.db.query(sql, [id, instance, markMs, keepOwner, era])).rowCount === 1;
  }

  async adminRelease(machineId: number, version: number): Promise<boolean> {
    const sql = `UPDATE ${this.name} SET owner = NULL, instance = NULL, expires_at = NULL,
      version = version + 1 WHERE machine_id = $1 AND version = $2`;
    return (await this.db.query(sql, [machineId, version])).rowCount === 1;
  }

  async append(entry: LeaseJournalEntry, retention: number): Promise<void> {
    const sql = `WITH added AS (INSERT INTO ${this.journal} (entry) VALUES ($1) RETURNING id)
      DELETE FROM ${this.journal} WHERE id <= (SELECT id FROM added) - $2`;
    const append = () => this.db.query(sql, [encodeJournalEntry(entry), retention]);
    await append().catch(async (error: unknown) => {
      if (codeOf(error) !== '42P01') throw error;
      await this.ensure(this.journal);
      await append();
    });
  }

  async history(): Promise<LeaseJournalEntry[]> {
    const r = await this.db.query(`SELECT entry FROM ${this.journal} ORDER BY id`).catch(noTable);
    return r.rows.flatMap((row: { entry: string }) => decodeJournalEntry(row.entry) ?? []);
  }
}
