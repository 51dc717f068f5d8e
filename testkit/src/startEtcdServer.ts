import { request } from 'node:http';
import { join } from 'node:path';
import { freePort } from './freePort.js';
import { startServerProcess } from './process/startServerProcess.js';
import type { TestServer } from './process/TestServer.js';
import { tempDir } from './process/tempDir.js';

/**
 * A throwaway single-member etcd started from Debian's `etcd-server`, for tests and benchmarks:
 * `address` is its client endpoint; `stop()` sends SIGTERM (SIGKILL with `{ kill: true }`);
 * `wipe()` loses every key as a member restored from a snapshot taken before any was written
 * (killed, its data dir emptied, started again on the same ports).
 */
export type EtcdServer = TestServer;

/** Options of {@link startEtcdServer}. */
export interface EtcdServerOptions {
  /** How long to wait for `/health` to answer true. @default 30000 */
  readonly readyTimeoutMs?: number;
}

export function healthy(port: number): Promise<boolean> {
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
  const dir = tempDir('vesta-etcd-');
  const dataDir = join(dir, 'data');
  const port = await freePort();
  const peerPort = await freePort();
  const client = `http://127.0.0.1:${port}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  return startServerProcess({
    name: 'etcd',
    port,
    command: 'etcd',
    args: [
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
    spawn: { env: { ...process.env, ETCD_UNSUPPORTED_ARCH: process.arch } },
    ready: () => healthy(port),
    readyTimeoutMs: options.readyTimeoutMs ?? 30_000,
    wipe: { dataDir },
    dir,
  });
}
