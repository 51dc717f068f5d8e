import pg from 'pg';
import type { Logger } from '@vesta/core';

/** How a pool connects. */
export interface PoolOptions {
  readonly url: string;
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
  const pool = new pg.Pool({
    connectionString: o.url,
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
