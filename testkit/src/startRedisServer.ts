import { join } from 'node:path';
import { freePort } from './freePort.js';
import { askTcp } from './process/askTcp.js';
import { startServerProcess } from './process/startServerProcess.js';
import type { TestServer } from './process/TestServer.js';
import { tempDir } from './process/tempDir.js';

/**
 * A throwaway redis-server for tests and benchmarks: `stop()` is a SHUTDOWN-like SIGTERM (SIGKILL,
 * a crash, with `{ kill: true }`), `restart()` replays the append-only file, `wipe()` is FLUSHALL.
 */
export interface RedisServer extends TestServer {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /**
   * The Unix socket it also listens on (in `dataDir`): a process in another network namespace
   * (`unshare --net`), where 127.0.0.1 is its own, reaches this server through it. ioredis takes
   * it as `path`, or in a URL as `redis://localhost/?path=<socketPath>`.
   */
  readonly socketPath: string;
  readonly dataDir: string;
}

/** The first line of redis-server's answer to one inline command ('' when nothing answers). */
export async function command(port: number, line: string): Promise<string> {
  const answer = await askTcp(port, `${line}\r\n`, (a) => a.includes('\r\n'));
  return answer.split('\r\n')[0] ?? '';
}

/**
 * Starts Debian's `redis-server` on 127.0.0.1 and a free port (and on a Unix socket, mode 0700,
 * in its data directory), its data in a new temporary directory, with the append-only file fsynced on every write (`appendfsync always`), so a kill
 * loses nothing it acknowledged; waits until it answers PING. scripts/ensure-redis.sh installs it.
 */
export async function startRedisServer(
  options: {
    readyTimeoutMs?: number;
    /**
     * false: no append-only file (and no snapshots), so a kill or a restart loses every key, as
     * a Redis run as a pure cache does. @default true
     */
    appendOnly?: boolean;
    /** Starts it as a replica of the Redis on this port of 127.0.0.1. @default a primary */
    replicaOf?: number;
  } = {},
): Promise<RedisServer> {
  const dataDir = tempDir('vesta-redis-');
  const port = await freePort();
  const socketPath = join(dataDir, 'redis.sock');
  const server = await startServerProcess({
    name: 'redis-server',
    port,
    command: 'redis-server',
    args: [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--unixsocket',
      socketPath,
      '--unixsocketperm',
      '700',
      '--dir',
      dataDir,
      '--save',
      '',
      '--appendonly',
      options.appendOnly === false ? 'no' : 'yes',
      '--appendfsync',
      'always',
      '--daemonize',
      'no',
      '--logfile',
      '',
      ...(options.replicaOf === undefined
        ? []
        : ['--replicaof', '127.0.0.1', String(options.replicaOf)]),
    ],
    ready: async () => (await command(port, 'PING')) === '+PONG',
    readyTimeoutMs: options.readyTimeoutMs ?? 30_000,
    probeIntervalMs: 50,
    exitHint: '; is it installed? sh scripts/ensure-redis.sh',
    wipe: async () => {
      const answer = await command(port, 'FLUSHALL');
      if (answer !== '+OK') throw new Error(`FLUSHALL on 127.0.0.1:${port} answered ${answer}`);
    },
    dir: dataDir,
  });
  return Object.assign(server, { url: `redis://127.0.0.1:${port}`, socketPath, dataDir });
}
