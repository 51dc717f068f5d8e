import { Redis } from 'ioredis';
import { eventually } from './eventually.js';
import { signalServer } from './process/startMembers.js';
import { startRedisSentinel, type RedisSentinel } from './startRedisSentinel.js';
import { startRedisServer, type RedisServer } from './startRedisServer.js';

/**
 * A Redis primary, its replica and a Sentinel watching them (master name `ids`), real processes
 * on 127.0.0.1, with the faults a failover test needs.
 */
export interface ReplicatedRedis {
  readonly primary: RedisServer;
  readonly replica: RedisServer;
  readonly sentinel: RedisSentinel;
  /**
   * The replica misses the primary's writes from now on: stopped (SIGSTOP), its link closed by
   * the primary (what was in flight stays in the replica's socket, which a stopped replica does
   * not read), so the primary has no replica connected. Resolves once the primary says so.
   */
  cutOffReplica(): Promise<void>;
  /** The replica runs again (SIGCONT); resolves once it has caught up (`WAIT`). */
  resumeReplica(): Promise<void>;
  /** The primary dies (kill -9), the replica runs again, and Sentinel promotes it. */
  failOver(): Promise<void>;
  /**
   * Restarts the dead primary as a replica of the promoted one, never promoted back (priority 0:
   * on a loaded host Sentinel can judge a new primary down at once and fail over again); resolves
   * once it caught up.
   */
  returnPrimaryAsReplica(): Promise<void>;
  /** How many replicas a server reports connected (`INFO replication`). */
  connectedReplicas(server: RedisServer): Promise<number>;
  /** Waits until every write the primary (the promoted one after a failover) took so far is on its replica (`WAIT`). */
  replicated(): Promise<void>;
  dispose(): Promise<void>;
}

/** Runs `use` on a fresh client of `server`. */
async function on<T>(server: RedisServer, use: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(server.url, { maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

/** `check` as an {@link eventually} poll: a connection refused or closed meanwhile (a server restarting, syncing) is a no. */
function poll(check: () => Promise<boolean>): () => Promise<boolean> {
  return () => check().catch(() => false);
}

/**
 * Starts a primary, a replica of it (online before this resolves) and a Sentinel that knows
 * both; every wait is bounded. scripts/ensure-redis.sh installs redis-server and redis-sentinel.
 */
export async function startReplicatedRedis(): Promise<ReplicatedRedis> {
  const started: { dispose(): Promise<void> }[] = [];
  const dispose = async (): Promise<void> => {
    for (const server of started.reverse()) await server.dispose().catch(() => undefined);
  };
  try {
    const primary = await startRedisServer();
    started.push(primary);
    const replica = await startRedisServer({ replicaOf: primary.port });
    started.push(replica);
    const connectedReplicas = (server: RedisServer): Promise<number> =>
      on(server, async (r) =>
        Number(/^connected_slaves:(\d+)/m.exec(await r.info('replication'))?.[1] ?? 0),
      );
    const online = async (): Promise<boolean> =>
      on(primary, async (r) => /slave0:.*state=online/.test(await r.info('replication')));
    if (!(await eventually(poll(online), 20_000)))
      throw new Error('the replica did not come online');
    // Started once the replica is online: its first look at the primary finds the replica.
    const sentinel = await startRedisSentinel({ masterPort: primary.port });
    started.push(sentinel);
    const onSentinel = new Redis({ host: '127.0.0.1', port: sentinel.port });
    try {
      const knows = async (): Promise<boolean> =>
        ((await onSentinel.call('SENTINEL', 'replicas', 'ids')) as unknown[]).length === 1;
      if (!(await eventually(knows, 20_000))) throw new Error('Sentinel did not find the replica');
    } finally {
      onSentinel.disconnect();
    }
    let current = primary;
    // WAIT answers at once with 0 while no replica is connected: asked until one acknowledges.
    const replicated = async (): Promise<void> => {
      const acked = async (): Promise<boolean> =>
        (await on(current, (r) => r.set('{vesta-test}:sync', '1').then(() => r.wait(1, 1000)))) >=
        1;
      if (!(await eventually(poll(acked), 30_000))) {
        const info = (s: RedisServer) => on(s, (r) => r.info('replication')).catch(String);
        const other = current === primary ? replica : primary;
        throw new Error(
          `the replica did not acknowledge the primary’s writes; the primary's INFO replication: ${await info(current)}; the replica's: ${await info(other)}`,
        );
      }
    };
    const signal = (sig: NodeJS.Signals): void => signalServer(replica, sig);
    return {
      primary,
      replica,
      sentinel,
      connectedReplicas,
      async cutOffReplica() {
        signal('SIGSTOP');
        await on(primary, (r) => r.client('KILL', 'TYPE', 'replica'));
        if (!(await eventually(poll(async () => (await connectedReplicas(primary)) === 0)))) {
          throw new Error('the primary still has its replica');
        }
      },
      async resumeReplica() {
        signal('SIGCONT');
        await replicated();
      },
      async failOver() {
        await primary.stop({ kill: true });
        signal('SIGCONT');
        const promoted = async (): Promise<boolean> =>
          (await sentinel.masterAddress()) === replica.address;
        if (!(await eventually(poll(promoted), 30_000)))
          throw new Error('Sentinel did not fail over');
        current = replica;
      },
      async returnPrimaryAsReplica() {
        await primary.restart();
        await on(primary, async (r) => {
          await r.config('SET', 'replica-priority', '0');
          await r.replicaof('127.0.0.1', replica.port);
        });
        await replicated();
      },
      replicated,
      dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}
