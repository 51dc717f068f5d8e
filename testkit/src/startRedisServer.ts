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
  readonly dataDir: string;
}

/** The first line of redis-server's answer to one inline command ('' when nothing answers). */
async function command(port: number, line: string): Promise<string> {
  const answer = await askTcp(port, `${line}\r\n`, (a) => a.includes('\r\n'));
  return answer.split('\r\n')[0] ?? '';
}

/**
 * Starts Debian's `redis-server` on 127.0.0.1 and a free port, its data in a new temporary
 * directory, with the append-only file fsynced on every write (`appendfsync always`), so a kill
 * loses nothing it acknowledged; waits until it answers PING. scripts/ensure-redis.sh installs it.
 */
export async function startRedisServer(
  options: { readyTimeoutMs?: number } = {},
): Promise<RedisServer> {
  const dataDir = tempDir('vesta-redis-');
  const port = await freePort();
  const server = await startServerProcess({
    name: 'redis-server',
    port,
    command: 'redis-server',
    args: [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dataDir,
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--daemonize',
      'no',
      '--logfile',
      '',
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
  return Object.assign(server, { url: `redis://127.0.0.1:${port}`, dataDir });
}
