import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './freePort.js';

/** A standalone ZooKeeper started from Debian's jars, for tests and benchmarks. */
export interface ZooKeeperServer {
  readonly port: number;
  /** `127.0.0.1:<port>`. */
  readonly connect: string;
  readonly dataDir: string;
  /** The java process id while it runs. */
  readonly pid: number | undefined;
  /** Stops it: SIGTERM, or SIGKILL (a crash) with `{ kill: true }`. Keeps the data dir. */
  stop(options?: { kill?: boolean }): Promise<void>;
  /** Starts it again on the same port and data dir (sessions and nodes survive). */
  restart(): Promise<void>;
  /** Stops it and deletes its data dir. */
  dispose(): Promise<void>;
}

/** Options of {@link startZooKeeperServer}. */
export interface ZooKeeperServerOptions {
  /** @default a free port */
  readonly port?: number;
  /** ZooKeeper's tick; sessions may last 2 to 20 ticks. @default 200 */
  readonly tickTimeMs?: number;
  /** How long to wait for it to answer `ruok`. @default 30000 */
  readonly readyTimeoutMs?: number;
}

const ZOOKEEPER_JAR = '/usr/share/java/zookeeper.jar';
const JARS = [ZOOKEEPER_JAR, '/usr/share/java/slf4j-nop.jar'];

function ruok(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let answer = '';
    socket.setTimeout(1000);
    socket.on('connect', () => socket.write('ruok'));
    socket.on('data', (chunk) => (answer += String(chunk)));
    socket.on('close', () => resolve(answer === 'imok'));
    socket.on('error', () => resolve(false));
    socket.on('timeout', () => socket.destroy());
  });
}

/**
 * Starts a standalone ZooKeeper (`ZooKeeperServerMain`) bound to 127.0.0.1 on a free port with
 * its data in a new temporary directory, and waits until it answers. Needs Debian's `zookeeper`
 * package and a Java runtime (scripts/ensure-zookeeper.sh installs them).
 */
export async function startZooKeeperServer(
  options: ZooKeeperServerOptions = {},
): Promise<ZooKeeperServer> {
  if (!existsSync(ZOOKEEPER_JAR)) {
    throw new Error(
      `${ZOOKEEPER_JAR} is missing: run "sh scripts/ensure-zookeeper.sh" (installs Debian's zookeeper and a JRE)`,
    );
  }
  const tickTimeMs = options.tickTimeMs ?? 200;
  const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
  const dataDir = mkdtempSync(join(tmpdir(), 'vesta-zk-'));
  const port = options.port ?? (await freePort());
  const config = join(dataDir, 'zoo.cfg');
  mkdirSync(join(dataDir, 'data'));
  writeFileSync(
    config,
    [
      `tickTime=${tickTimeMs}`,
      `dataDir=${join(dataDir, 'data')}`,
      `clientPort=${port}`,
      'clientPortAddress=127.0.0.1',
      'admin.enableServer=false',
      '4lw.commands.whitelist=ruok,srvr,mntr',
      `minSessionTimeout=${2 * tickTimeMs}`,
      `maxSessionTimeout=${Math.max(60_000, 20 * tickTimeMs)}`,
      'maxClientCnxns=0',
      '',
    ].join('\n'),
  );
  let child: ChildProcess | undefined;
  let output = '';

  const launch = async (): Promise<void> => {
    const classpath = JARS.filter((jar) => existsSync(jar)).join(':');
    output = '';
    const proc = spawn(
      'java',
      [
        '-Xmx128m',
        '-XX:+UseSerialGC',
        '-XX:TieredStopAtLevel=1',
        '-cp',
        classpath,
        'org.apache.zookeeper.server.ZooKeeperServerMain',
        config,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = proc;
    proc.stdout?.on('data', (chunk: Buffer) => (output = (output + String(chunk)).slice(-4000)));
    proc.stderr?.on('data', (chunk: Buffer) => (output = (output + String(chunk)).slice(-4000)));
    let exited = false;
    proc.once('exit', () => (exited = true));
    const deadline = Date.now() + readyTimeoutMs;
    while (!(await ruok(port))) {
      if (exited || Date.now() > deadline) {
        proc.kill('SIGKILL');
        throw new Error(
          `ZooKeeper did not start on 127.0.0.1:${port}${exited ? ' (it exited)' : ''}:\n${output}`,
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
    connect: `127.0.0.1:${port}`,
    dataDir,
    get pid() {
      return child?.pid;
    },
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
