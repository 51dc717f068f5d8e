import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './freePort.js';
import { askTcp } from './process/askTcp.js';
import { startServerProcess } from './process/startServerProcess.js';
import type { TestServer } from './process/TestServer.js';
import { tempDir } from './process/tempDir.js';

/**
 * A standalone ZooKeeper started from Debian's jars, for tests and benchmarks: `restart()` keeps
 * sessions and nodes; `wipe()` loses them all, as a container without a volume (killed, its data
 * dir emptied, started again on the same port).
 */
export interface ZooKeeperServer extends TestServer {
  /** `127.0.0.1:<port>` (the same as `address`). */
  readonly connect: string;
  readonly dataDir: string;
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

export const ZOOKEEPER_JAR = '/usr/share/java/zookeeper.jar';
export const JARS = [ZOOKEEPER_JAR, '/usr/share/java/slf4j-nop.jar'];

/**
 * The settings every test ZooKeeper runs with (one server or a member of an ensemble): its tick,
 * data dir and client port on 127.0.0.1, no admin server, the four-letter words the harnesses
 * ask, session bounds from the tick, no connection limit.
 */
export function zooKeeperConfigLines(tickTimeMs: number, dataDir: string, port: number): string[] {
  return [
    `tickTime=${tickTimeMs}`,
    `dataDir=${dataDir}`,
    `clientPort=${port}`,
    'clientPortAddress=127.0.0.1',
    'admin.enableServer=false',
    '4lw.commands.whitelist=ruok,srvr,mntr',
    `minSessionTimeout=${2 * tickTimeMs}`,
    `maxSessionTimeout=${Math.max(60_000, 20 * tickTimeMs)}`,
    'maxClientCnxns=0',
  ];
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
  const dataDir = tempDir('vesta-zk-');
  const port = options.port ?? (await freePort());
  const config = join(dataDir, 'zoo.cfg');
  const zkData = join(dataDir, 'data');
  mkdirSync(zkData);
  writeFileSync(config, [...zooKeeperConfigLines(tickTimeMs, zkData, port), ''].join('\n'));
  const server = await startServerProcess({
    name: 'ZooKeeper',
    port,
    command: 'java',
    args: [
      '-Xmx128m',
      '-XX:+UseSerialGC',
      '-XX:TieredStopAtLevel=1',
      '-cp',
      JARS.filter((jar) => existsSync(jar)).join(':'),
      'org.apache.zookeeper.server.ZooKeeperServerMain',
      config,
    ],
    ready: async () => (await askTcp(port, 'ruok')) === 'imok',
    readyTimeoutMs: options.readyTimeoutMs ?? 30_000,
    wipe: { dataDir: zkData },
    dir: dataDir,
  });
  return Object.assign(server, { connect: `127.0.0.1:${port}`, dataDir });
}
