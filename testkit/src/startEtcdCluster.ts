import { join } from 'node:path';
import { freePort } from './freePort.js';
import { startMembers } from './process/startMembers.js';
import { startServerProcess } from './process/startServerProcess.js';
import type { TestServer } from './process/TestServer.js';
import { tempDir } from './process/tempDir.js';
import { healthy } from './startEtcdServer.js';

/** A throwaway etcd cluster of several members on 127.0.0.1, each a process of its own. */
export interface EtcdCluster {
  readonly members: readonly TestServer[];
  /** Every member's client endpoint, `127.0.0.1:<port>,...`. */
  readonly endpoints: string;
  /** The member every member names as leader now (undefined while they do not agree). */
  leader(): Promise<TestServer | undefined>;
  /** Whether every member says it is healthy. */
  serving(): Promise<boolean>;
  /** Makes a member silent (SIGSTOP): it takes connections and answers nothing. */
  pause(member: TestServer): void;
  /** Lets a silent member run again (SIGCONT). */
  resume(member: TestServer): void;
  dispose(): Promise<void>;
}

interface Status {
  readonly header?: { readonly member_id?: string };
  readonly leader?: string;
}

async function status(port: number): Promise<Status | undefined> {
  try {
    const answer = await fetch(`http://127.0.0.1:${port}/v3/maintenance/status`, {
      method: 'POST',
      body: '{}',
      signal: AbortSignal.timeout(1000),
    });
    return (await answer.json()) as Status;
  } catch {
    return undefined;
  }
}

/**
 * Starts an etcd cluster of `size` members from Debian's `etcd-server` on free ports of
 * 127.0.0.1 (its elections quick: 50 ms heartbeats, a 500 ms election timeout, pre-vote on), and
 * waits until every member says it is healthy. scripts/ensure-etcd.sh installs etcd.
 */
export async function startEtcdCluster(size = 3): Promise<EtcdCluster> {
  const dir = tempDir('vesta-etcd-cluster-');
  const ports = await Promise.all(
    Array.from({ length: size }, async () => ({
      client: await freePort(),
      peer: await freePort(),
    })),
  );
  const name = (i: number): string => `m${i}`;
  const initial = ports.map((p, i) => `${name(i)}=http://127.0.0.1:${p.peer}`).join(',');
  const quorum = await startMembers(
    ports.map((p, i) => {
      const client = `http://127.0.0.1:${p.client}`;
      const peer = `http://127.0.0.1:${p.peer}`;
      const dataDir = join(dir, name(i));
      return startServerProcess({
        name: `etcd ${name(i)}`,
        port: p.client,
        command: 'etcd',
        args: [
          `--name=${name(i)}`,
          `--data-dir=${dataDir}`,
          `--listen-client-urls=${client}`,
          `--advertise-client-urls=${client}`,
          `--listen-peer-urls=${peer}`,
          `--initial-advertise-peer-urls=${peer}`,
          `--initial-cluster=${initial}`,
          '--initial-cluster-token=vesta-test',
          '--initial-cluster-state=new',
          '--heartbeat-interval=50',
          '--election-timeout=500',
          '--pre-vote',
          '--logger=zap',
          '--log-level=error',
          '--grpc-keepalive-min-time=200ms',
        ],
        spawn: { env: { ...process.env, ETCD_UNSUPPORTED_ARCH: process.arch } },
        ready: () => healthy(p.client),
        readyTimeoutMs: 60_000,
        wipe: { dataDir },
        dir: dataDir,
      });
    }),
    dir,
  );
  const members = quorum.members;
  return {
    members,
    endpoints: members.map((m) => m.address).join(','),
    // The leader every member names (one back from a pause may name an old one for a moment).
    async leader() {
      const all = await Promise.all(members.map((m) => status(m.port)));
      const named = new Set(all.map((s) => s?.leader));
      const [leader] = named;
      if (named.size !== 1 || leader === undefined) return undefined;
      return members[all.findIndex((s) => s?.header?.member_id === leader)];
    },
    serving: async () => (await Promise.all(members.map((m) => healthy(m.port)))).every(Boolean),
    pause: quorum.pause,
    resume: quorum.resume,
    dispose: quorum.dispose,
  };
}
