import pg from 'pg';
import type { Logger } from '@vesta/core';
import type { PostgresTarget } from './postgresTarget.js';

/**
 * A pool of two connections (a renewal never queues behind a slow statement for long). pg-pool
 * drops a connection whose statement failed or timed out, so one stuck behind a partition is never
 * reused; an idle one the server closed (a restart) is dropped and the next statement reconnects.
 */
export function openPool(o: {
  readonly target: PostgresTarget;
  readonly connectTimeoutMs: number;
  readonly operationTimeoutMs: number;
  readonly logger?: Logger;
}): pg.Pool {
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

/** A first connection of `db`, through the target's hosts in turn while one refuses or is a standby. */
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
 * A pg `Client` for several hosts (node-postgres has no multi-host URL): each connection goes to
 * the host that served last, and on to the next while one refuses or, with `readWrite`, is a
 * standby (libpq's `target_session_attrs=read-write`): after a failover the promoted one serves.
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
          if (serving === this.#index) serving = this.#index + 1;
          await this.end().catch(() => undefined);
          throw error;
        }
      })();
      if (callback === undefined) return connected;
      connected.then(() => callback(undefined as never), callback);
    }
  };
}
