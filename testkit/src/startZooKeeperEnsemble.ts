import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './freePort.js';
import { askTcp } from './process/askTcp.js';
import { startMembers } from './process/startMembers.js';
import { startServerProcess } from './process/startServerProcess.js';
import type { TestServer } from './process/TestServer.js';
import { tempDir } from './process/tempDir.js';
import { JARS, ZOOKEEPER_JAR, zooKeeperConfigLines } from './startZooKeeperServer.js';

/** A throwaway ZooKeeper ensemble of several servers on 127.0.0.1, each a JVM of its own. */
export interface ZooKeeperEnsemble {
  readonly members: readonly TestServer[];
  /** The connection string of every server, `127.0.0.1:<port>,...`. */
  readonly connect: string;
  /** The server every other follows now (`srvr`'s `Mode:`), undefined while they do not agree. */
  leader(): Promise<TestServer | undefined>;
  /** Whether every server serves (as leader or follower). */
  serving(): Promise<boolean>;
  /** Makes a server silent (SIGSTOP): it keeps its connections and answers nothing. */
  pause(server: TestServer): void;
  /** Lets a silent server run again (SIGCONT). */
  resume(server: TestServer): void;
  dispose(): Promise<void>;
}

/** The mode a server reports (`leader`, `follower`), or undefined while it serves nothing. */
async function mode(port: number): Promise<string | undefined> {
  return /^Mode: (\w+)/m.exec(await askTcp(port, 'srvr'))?.[1];
}

/**
 * Starts a ZooKeeper ensemble of `size` servers (`QuorumPeerMain`) from Debian's jars on free
 * ports of 127.0.0.1, ticks of `tickTimeMs` (200 by default; `syncLimit` 5 ticks, `initLimit`
 * 10), and waits until every server serves as leader or follower. Needs Debian's `zookeeper`
 * package and a Java runtime (scripts/ensure-zookeeper.sh installs them).
 */
export async function startZooKeeperEnsemble(
  size = 3,
  tickTimeMs = 200,
): Promise<ZooKeeperEnsemble> {
  if (!existsSync(ZOOKEEPER_JAR)) {
    throw new Error(`${ZOOKEEPER_JAR} is missing: run "sh scripts/ensure-zookeeper.sh"`);
  }
  const dir = tempDir('vesta-zk-ensemble-');
  const ports = await Promise.all(
    Array.from({ length: size }, async () => ({
      client: await freePort(),
      peer: await freePort(),
      election: await freePort(),
    })),
  );
  const quorum = ports.map((p, i) => `server.${i + 1}=127.0.0.1:${p.peer}:${p.election}`);
  const ensemble = await startMembers(
    ports.map((p, i) => {
      const home = join(dir, `s${i + 1}`);
      const data = join(home, 'data');
      mkdirSync(data, { recursive: true });
      writeFileSync(join(data, 'myid'), `${i + 1}\n`);
      const config = join(home, 'zoo.cfg');
      writeFileSync(
        config,
        [
          ...zooKeeperConfigLines(tickTimeMs, data, p.client),
          'initLimit=10',
          'syncLimit=5',
          ...quorum,
          '',
        ].join('\n'),
      );
      return startServerProcess({
        name: `ZooKeeper s${i + 1}`,
        port: p.client,
        command: 'java',
        args: [
          '-Xmx128m',
          '-XX:+UseSerialGC',
          '-XX:TieredStopAtLevel=1',
          // A silent peer's election connection is given up after this, not the 5 s default
          // (an election waited on it, leaving the ensemble without a leader for seconds).
          '-Dzookeeper.cnxTimeout=500',
          '-cp',
          JARS.filter((jar) => existsSync(jar)).join(':'),
          'org.apache.zookeeper.server.quorum.QuorumPeerMain',
          config,
        ],
        ready: async () => (await mode(p.client)) !== undefined,
        readyTimeoutMs: 90_000,
        wipe: { dataDir: join(data, 'version-2') },
        dir: home,
      });
    }),
    dir,
  );
  const servers = ensemble.members;
  return {
    members: servers,
    connect: servers.map((s) => s.address).join(','),
    // One leader that every other server follows: a leader back from a pause may still say
    // it leads for a moment after the others elected another.
    async leader() {
      const modes = await Promise.all(servers.map((s) => mode(s.port)));
      const leaders = modes.filter((m) => m === 'leader').length;
      const followers = modes.filter((m) => m === 'follower').length;
      return leaders === 1 && followers === servers.length - 1
        ? servers[modes.indexOf('leader')]
        : undefined;
    },
    serving: async () =>
      (await Promise.all(servers.map((s) => mode(s.port)))).every((m) => m !== undefined),
    pause: ensemble.pause,
    resume: ensemble.resume,
    dispose: ensemble.dispose,
  };
}
