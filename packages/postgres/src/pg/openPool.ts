import pg from 'pg';
import type { Logger } from '@vesta/core';
import type { PostgresTarget } from './postgresTarget.js';

/** How a pool connects. */
export interface PoolOptions {
  readonly target: PostgresTarget;
  readonly connectTimeoutMs: number;
  readonly operationTimeoutMs: number;
  /** Where a dropped idle connection is reported (debug level: the next statement reconnects). */
  readonly logger?: Logger;
}

/**
 * A small pool (two connections: a renewal never queues behind a slow statement for long). A
 * statement that fails or times out drops its connection (pg-pool does so on an error), so a
 * connection stuck behind a partition is never reused; an idle connection the server closes
 * (a restart) is dropped quietly and the next statement opens a new one.
 */
export function openPool(o: PoolOptions): pg.Pool {
  const { hosts, readWrite } = o.target;
  const pool = new pg.Pool({
    ...(hosts.length === 1 && !readWrite
      ? { connectionString: hosts[0] }
      : { Client: primaryClient(o.target) }),
    max: 2,
    connectionTimeoutMillis: o.connectTimeoutMs,
    query_timeout: o.operationTimeoutMs,
    idleTimeoutMillis: 30_000,
    allowExitOnIdle: true,
    keepAlive: true,
    application_name: 'vesta',
  });
  pool.on('error', (error) => {
    o.logger?.info({ error: String(error) }, 'PostgreSQL closed an idle connection');
  });
  return pool;
}

/**
 * Opens a first connection of `db`, going through the target's hosts in turn while one refuses
 * or is a standby (each failed connection moves the pool to the next host): a start, or an
 * admin call, reaches the primary wherever it is in the list. The last failure is thrown.
 */
export async function reachPrimary(db: pg.Pool, target: PostgresTarget): Promise<void> {
  for (let tried = 1; ; tried++) {
    try {
      await db.query('SELECT 1');
      return;
    } catch (error) {
      if (tried >= target.hosts.length) throw error;
    }
  }
}

/**
 * A pg `Client` class for a pool of several hosts (node-postgres has no multi-host URL): each new
 * connection goes to the host that served last, and on to the next one while a host refuses or,
 * with `readWrite`, is in recovery (a standby), as libpq's `target_session_attrs=read-write`
 * does. A pool's broken connections are dropped, so after a failover the next statement finds
 * the promoted server.
 */
function primaryClient(target: PostgresTarget): typeof pg.Client {
  let serving = 0;
  return class PrimaryClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      const { hosts } = target;
      super({
        ...(typeof config === 'object' ? config : {}),
        connectionString: hosts[serving % hosts.length],
      });
      this.#index = serving % hosts.length;
    }

    readonly #index: number;

    override connect(): Promise<pg.Client>;
    override connect(callback: (err: Error) => void): void;
    override connect(callback?: (err: Error) => void): Promise<pg.Client> | void {
      const connected = (async () => {
        try {
          await super.connect();
          if (target.readWrite) {
            const r = await this.query<{ standby: boolean }>(
              'SELECT pg_is_in_recovery() AS standby',
            );
            if (r.rows[0]?.standby !== false)
              throw new Error(
                `${target.hosts.length > 1 ? 'host ' + String(this.#index + 1) + ' of ' + target.where : target.where} is a standby (read-only)`,
              );
          }
          serving = this.#index;
          return this;
        } catch (error) {
          // The next connection tries the next host.
          if (serving === this.#index) serving = this.#index + 1;
          await this.end().catch(() => undefined);
          throw error;
        }
      })();
      if (callback === undefined) return connected;
      connected.then(
        () => callback(undefined as unknown as Error),
        (error: unknown) => callback(error as Error),
      );
    }
  };
}
