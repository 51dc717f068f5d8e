import { chownSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './freePort.js';
import { startServerProcess } from './process/startServerProcess.js';
import type { TestServer } from './process/TestServer.js';
import { tempDir } from './process/tempDir.js';
import { isReady, postgresBinDir, runAs, type PostgresServer } from './startPostgresServer.js';

/** A throwaway PgBouncer in front of a test PostgreSQL. */
export interface PgBouncer extends TestServer {
  /** `postgres://vesta@127.0.0.1:<port>/vesta`, through the bouncer. */
  readonly url: string;
}

/**
 * Starts Debian's `pgbouncer` on 127.0.0.1 and a free port in front of `server`'s `vesta`
 * database, in `poolMode` (`transaction`: a server connection per transaction, as teams run it
 * for fleets), trusting its clients; as root it runs as the `postgres` user (it refuses root).
 * scripts/ensure-postgresql.sh installs it.
 */
export async function startPgBouncer(
  server: PostgresServer,
  poolMode: 'session' | 'transaction' = 'transaction',
): Promise<PgBouncer> {
  const bin = existsSync('/usr/sbin/pgbouncer') ? '/usr/sbin/pgbouncer' : 'pgbouncer';
  const pgBin = postgresBinDir();
  if (pgBin === undefined)
    throw new Error('PostgreSQL is not installed: sh scripts/ensure-postgresql.sh');
  const user = runAs();
  const dir = tempDir('vesta-pgbouncer-');
  const port = await freePort();
  const config = join(dir, 'pgbouncer.ini');
  writeFileSync(join(dir, 'users.txt'), '"vesta" ""\n');
  writeFileSync(
    config,
    [
      '[databases]',
      `vesta = host=127.0.0.1 port=${server.port} dbname=vesta user=vesta`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      `pool_mode = ${poolMode}`,
      'max_client_conn = 5000',
      'default_pool_size = 20',
      'ignore_startup_parameters = extra_float_digits,options',
      'logfile =',
      'pidfile =',
      '',
    ].join('\n'),
  );
  if (user !== undefined) {
    for (const path of [dir, config, join(dir, 'users.txt')]) chownSync(path, user.uid, user.gid);
  }
  const bouncer = await startServerProcess({
    name: 'PgBouncer',
    port,
    command: bin,
    args: [...(user === undefined ? [] : ['-u', 'postgres']), config],
    ready: () => isReady(pgBin, port, dir),
    readyTimeoutMs: 30_000,
    exitHint: '; is it installed? sh scripts/ensure-postgresql.sh',
    wipe: () => Promise.reject(new Error('a PgBouncer keeps no data to wipe')),
    dir,
  });
  return Object.assign(bouncer, { url: `postgres://vesta@127.0.0.1:${port}/vesta` });
}
