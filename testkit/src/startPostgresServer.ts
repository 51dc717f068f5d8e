import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { freePort } from './freePort.js';
import { startServerProcess } from './process/startServerProcess.js';
import type { TestServer } from './process/TestServer.js';
import { tempDir } from './process/tempDir.js';

/**
 * A throwaway PostgreSQL cluster started from Debian's binaries, for tests and benchmarks:
 * `pid` is the postmaster's; `stop()` is a fast shutdown (an immediate one, a crash with no
 * checkpoint, with `{ kill: true }`); `wipe()` loses every row as a database restored empty would
 * (the `vesta` database dropped, its connections cut, and created again) while the server keeps
 * answering on the same port.
 */
export interface PostgresServer extends TestServer {
  /** `postgres://vesta@127.0.0.1:<port>/vesta` (trust authentication, no password). */
  readonly url: string;
  /** Runs one statement in the `postgres` database as the `vesta` superuser; its output, trimmed. */
  sql(statement: string): Promise<string>;
}

/** Options of {@link startPostgresServer}. */
export interface PostgresServerOptions {
  /** @default a free port */
  readonly port?: number;
  /** How long to wait for it to accept connections. @default 60000 */
  readonly readyTimeoutMs?: number;
  /**
   * Starts it as a streaming standby of this server (`pg_basebackup -R` of it, hot standby):
   * `SELECT pg_promote()` makes it a primary. @default a primary of its own
   */
  readonly standbyOf?: PostgresServer;
}

/** The newest `/usr/lib/postgresql/<version>/bin`, or undefined when none is installed. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

/** PostgreSQL refuses to run as root: as root, the `postgres` system user runs it. */
export function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string): number =>
    Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

const INITDB_ARGS = ['-U', 'vesta', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'];

/**
 * A data dir initdb made for this PostgreSQL version, owner and {@link INITDB_ARGS}, once per
 * machine (under the temp dir), for each cluster to start from a copy of: initdb costs about
 * 1.5 s of CPU per cluster, and a test run starts several. It is made aside and renamed into
 * place whole, so that a concurrent start never copies a half-written one (the loser of a race
 * drops its own).
 */
function initializedCluster(
  bin: string,
  user: { uid: number; gid: number } | undefined,
  env: NodeJS.ProcessEnv,
): string {
  const key = createHash('sha256')
    .update(JSON.stringify([bin, user?.uid ?? process.getuid?.(), INITDB_ARGS]))
    .digest('hex')
    .slice(0, 12);
  const template = join(tmpdir(), `vesta-pg-initdb-${basename(dirname(bin))}-${key}`);
  if (existsSync(template)) return template;
  const staging = tempDir('vesta-pg-initdb-');
  try {
    if (user !== undefined) chownSync(staging, user.uid, user.gid);
    execFileSync(join(bin, 'initdb'), ['-D', join(staging, 'data'), ...INITDB_ARGS], {
      env,
      cwd: staging,
      stdio: 'pipe',
      ...(user ?? {}),
    });
    try {
      renameSync(join(staging, 'data'), template);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST' && code !== 'ENOTEMPTY') throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return template;
}

export function isReady(bin: string, port: number, socketDir: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(
      join(bin, 'pg_isready'),
      ['-q', '-h', '127.0.0.1', '-p', String(port), '-d', 'vesta', '-U', 'vesta', '-t', '1'],
      { env: { ...process.env, PGHOST: socketDir } },
      (error) => resolve(error === null),
    );
  });
}

/**
 * Starts a PostgreSQL cluster (`initdb` + `postgres` from Debian's `postgresql` package) listening
 * on 127.0.0.1 on a free port, its data in a new temporary directory, with a `vesta` superuser and
 * database, and waits until it accepts connections. As root, the cluster runs as the `postgres`
 * system user (it refuses root). scripts/ensure-postgresql.sh installs the package.
 */
export async function startPostgresServer(
  options: PostgresServerOptions = {},
): Promise<PostgresServer> {
  const bin = postgresBinDir();
  if (bin === undefined) {
    throw new Error(
      'PostgreSQL is not installed: run "sh scripts/ensure-postgresql.sh" (installs Debian\'s postgresql)',
    );
  }
  const user = runAs();
  const dir = tempDir('vesta-pg-');
  const dataDir = join(dir, 'data');
  const socketDir = join(dir, 'run');
  mkdirSync(socketDir);
  if (user !== undefined) {
    chownSync(dir, user.uid, user.gid);
    chownSync(socketDir, user.uid, user.gid);
  }
  const env = { ...process.env, LC_ALL: 'C', LANG: 'C' };
  const spawnOptions = { env, cwd: dir, ...(user ?? {}) };
  // A copy of the machine's initdb output (owner and modes kept): the same files a fresh initdb
  // writes, for a fraction of its CPU.
  const primary = options.standbyOf;
  if (primary === undefined) {
    execFileSync('cp', ['-a', initializedCluster(bin, user, env), dataDir], { stdio: 'pipe' });
  } else {
    // A copy of the primary, streaming from it (`-R` writes primary_conninfo and standby.signal).
    execFileSync(
      join(bin, 'pg_basebackup'),
      [
        '-h',
        '127.0.0.1',
        '-p',
        String(primary.port),
        '-U',
        'vesta',
        '-D',
        dataDir,
        '-R',
        '-X',
        'stream',
        '--checkpoint=fast',
      ],
      { env, cwd: dir, stdio: 'pipe', ...(user ?? {}) },
    );
  }
  const port = options.port ?? (await freePort());

  /** Runs one statement in the `postgres` database; its output, trimmed. */
  const psql = (sql: string): Promise<string> =>
    new Promise((resolve, reject) => {
      execFile(
        join(bin, 'psql'),
        [
          '-h',
          '127.0.0.1',
          '-p',
          String(port),
          '-U',
          'vesta',
          '-d',
          'postgres',
          '-v',
          'ON_ERROR_STOP=1',
          '-tAc',
          sql,
        ],
        (error, stdout, stderr) =>
          error === null ? resolve(stdout.trim()) : reject(new Error(`${sql}: ${stderr}`)),
      );
    });

  const server = await startServerProcess({
    name: 'PostgreSQL',
    port,
    command: join(bin, 'postgres'),
    args: [
      '-D',
      dataDir,
      '-p',
      String(port),
      '-k',
      socketDir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=on',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=200',
      '-c',
      'shared_buffers=16MB',
    ],
    spawn: spawnOptions,
    ready: () => isReady(bin, port, socketDir),
    readyTimeoutMs: options.readyTimeoutMs ?? 60_000,
    afterStart: async () => {
      // A standby has the primary's databases (and takes no writes).
      if (primary !== undefined) return;
      const exists = await psql("SELECT 1 FROM pg_database WHERE datname = 'vesta'");
      if (exists !== '1') await psql('CREATE DATABASE vesta');
    },
    // SIGQUIT: immediate shutdown (the backends go at once, no checkpoint); SIGINT: fast shutdown.
    stopSignal: 'SIGINT',
    killSignal: 'SIGQUIT',
    stopTimeoutMs: 10_000,
    wipe: async () => {
      await psql('DROP DATABASE IF EXISTS vesta WITH (FORCE)');
      await psql('CREATE DATABASE vesta');
    },
    dir,
  });
  return Object.assign(server, { url: `postgres://vesta@127.0.0.1:${port}/vesta`, sql: psql });
}
