import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './freePort.js';

/** A throwaway single-member etcd started from Debian's `etcd-server`, for tests and benchmarks. */
export interface EtcdServer {
  readonly port: number;
  /** `127.0.0.1:<client port>`. */
  readonly address: string;
  /** The etcd process id while it runs. */
  readonly pid: number | undefined;
  /** Stops it: SIGTERM, or SIGKILL (a crash) with `{ kill: true }`. Keeps the data dir. */
  stop(options?: { kill?: boolean }): Promise<void>;
  /** Starts it again on the same ports and data dir. */
  restart(): Promise<void>;
  /**
   * Loses every key, as a member restored from a snapshot taken before any was written: killed,
   * its data dir emptied, started again on the same ports.
   */
  wipe(): Promise<void>;
  /** Stops it and deletes its data dir. */
  dispose(): Promise<void>;
}

/** Options of {@link startEtcdServer}. */
export interface EtcdServerOptions {
  /** How long to wait for `/health` to answer true. @default 30000 */
  readonly readyTimeoutMs?: number;
}

function healthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/health', timeout: 1000 }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += String(chunk)));
      res.on('end', () => resolve(res.statusCode === 200 && body.includes('"true"')));
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/**
 * Starts a single-member etcd on free client and peer ports of 127.0.0.1, its data in a new
 * temporary directory, and waits until `/health` says true. Needs Debian's `etcd-server`
 * (scripts/ensure-etcd.sh installs it).
 */
export async function startEtcdServer(options: EtcdServerOptions = {}): Promise<EtcdServer> {
  const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
  const dir = mkdtempSync(join(tmpdir(), 'vesta-etcd-'));
  const dataDir = join(dir, 'data');
  const port = await freePort();
  const peerPort = await freePort();
  const client = `http://127.0.0.1:${port}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  let child: ChildProcess | undefined;
  let output = '';

  const launch = async (): Promise<void> => {
    output = '';
    const proc = spawn(
      'etcd',
      [
        '--name=vesta',
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${client}`,
        `--advertise-client-urls=${client}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=vesta=${peer}`,
        '--initial-cluster-state=new',
        '--logger=zap',
        '--log-level=error',
        // Tests keep gRPC connections alive with pings more often than etcd's 5 s default allows.
        '--grpc-keepalive-min-time=200ms',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, ETCD_UNSUPPORTED_ARCH: process.arch },
      },
    );
    child = proc;
    const keep = (chunk: Buffer): void => {
      output = (output + String(chunk)).slice(-4000);
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    let exited = false;
    proc.once('exit', () => (exited = true));
    const deadline = Date.now() + readyTimeoutMs;
    while (!(await healthy(port))) {
      if (exited || Date.now() > deadline) {
        proc.kill('SIGKILL');
        throw new Error(
          `etcd did not start on ${client}${exited ? ' (it exited)' : ''}:\n${output}`,
        );
      }
      await new Promise((r) => setTimeout(r, 100));
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
    get pid() {
      return child?.pid;
    },
    stop,
    restart: async () => {
      await stop();
      await launch();
    },
    wipe: async () => {
      await stop({ kill: true });
      rmSync(dataDir, { recursive: true, force: true });
      await launch();
    },
    dispose: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
