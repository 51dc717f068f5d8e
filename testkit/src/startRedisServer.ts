import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './freePort.js';

/** A throwaway redis-server for tests and benchmarks. */
export interface RedisServer {
  readonly port: number;
  /** `127.0.0.1:<port>`. */
  readonly address: string;
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  readonly dataDir: string;
  /** Stops it: SHUTDOWN-like SIGTERM, or SIGKILL (a crash) with `{ kill: true }`. Keeps the data. */
  stop(options?: { kill?: boolean }): Promise<void>;
  /** Starts it again on the same port and data dir (the append-only file is replayed). */
  restart(): Promise<void>;
  /** Stops it and deletes its data dir. */
  dispose(): Promise<void>;
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let answer = '';
    socket.setTimeout(1000);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += String(chunk);
      if (answer.includes('\r\n')) socket.end();
    });
    socket.on('close', () => resolve(answer.startsWith('+PONG')));
    socket.on('error', () => resolve(false));
    socket.on('timeout', () => socket.destroy());
  });
}

/**
 * Starts Debian's `redis-server` on 127.0.0.1 and a free port, its data in a new temporary
 * directory, with the append-only file fsynced on every write (`appendfsync always`), so a kill
 * loses nothing it acknowledged; waits until it answers PING. scripts/ensure-redis.sh installs it.
 */
export async function startRedisServer(
  options: { readyTimeoutMs?: number } = {},
): Promise<RedisServer> {
  const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
  const dataDir = mkdtempSync(join(tmpdir(), 'vesta-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;

  const launch = async (): Promise<void> => {
    let output = '';
    const proc = spawn(
      'redis-server',
      [
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
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = proc;
    proc.stdout?.on('data', (chunk: Buffer) => (output = (output + String(chunk)).slice(-4000)));
    proc.stderr?.on('data', (chunk: Buffer) => (output = (output + String(chunk)).slice(-4000)));
    let exited = false;
    proc.once('error', () => (exited = true));
    proc.once('exit', () => (exited = true));
    const deadline = Date.now() + readyTimeoutMs;
    while (!(await ping(port))) {
      if (exited || Date.now() > deadline) {
        proc.kill('SIGKILL');
        throw new Error(
          `redis-server did not start on 127.0.0.1:${port}${exited ? ' (it exited; is it installed? sh scripts/ensure-redis.sh)' : ''}:\n${output}`,
        );
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  const stop = async ({ kill = false } = {}): Promise<void> => {
    const proc = child;
    child = undefined;
    if (proc === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill(kill ? 'SIGKILL' : 'SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };

  await launch();
  return {
    port,
    address: `127.0.0.1:${port}`,
    url: `redis://127.0.0.1:${port}`,
    dataDir,
    stop,
    restart: async () => {
      await stop();
      await launch();
    },
    dispose: async () => {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
