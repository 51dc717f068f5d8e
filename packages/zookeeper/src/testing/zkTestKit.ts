import { randomUUID } from 'node:crypto';
import { silentLogger, systemTimeSource, type Logger } from '@vesta/core';
import { enterLeaseEra } from '@vesta/lease';
import { createEmbeddedIdService, type EmbeddedIdService } from '@vesta/embedded';
import { ZooKeeperMachineIdProvider } from '../ZooKeeperMachineIdProvider.js';
import type { ZooKeeperMachineIdLease } from '../index.js';
import type { ZooKeeperMachineIdOptions } from '../ZooKeeperMachineIdOptions.js';
import { ZkClient } from '../zk/ZkClient.js';
import { ZkTree } from '../zk/ZkTree.js';

/**
 * Short timings for tests: session 1 s, refresh 100 ms, fence 400 ms, reclaim 1.2 s. Each test
 * leases under a fresh root, whose allocation era opens at once (`eraWaitMs` 0: no instance
 * ever held an id there); the data-loss spec sets a real wait.
 */
export const FAST = {
  sessionTimeoutMs: 1000,
  refreshIntervalMs: 100,
  fenceAfterMs: 400,
  reclaimAfterMs: 1200,
  connectTimeoutMs: 3000,
  operationTimeoutMs: 2000,
  ownerWaitMs: 1500,
  eraWaitMs: 0,
} as const;

/** A fresh root per test, so tests never see each other's allocations. */
export function testRoot(): string {
  return `/test-${randomUUID().slice(0, 8)}`;
}

/** A client connected to `connect`, with patient requests (closed again if it cannot connect). */
export async function openZkClient(
  connect: string,
  sessionTimeoutMs: number = FAST.sessionTimeoutMs,
): Promise<ZkClient> {
  const { zk, whenConnected } = ZkClient.open(connect, {
    sessionTimeoutMs,
    connectTimeoutMs: 10_000,
    operationTimeoutMs: 10_000,
  });
  try {
    await whenConnected;
  } catch (error) {
    zk.close();
    throw error;
  }
  return zk;
}

/**
 * Runs `use` on a client of the test's own, connected to `connect` (a short session, patient
 * requests), and closes it after.
 */
export async function withZkClient<T>(
  connect: string,
  use: (zk: ZkClient) => Promise<T>,
): Promise<T> {
  const zk = await openZkClient(connect);
  try {
    return await use(zk);
  } finally {
    zk.close();
  }
}

/**
 * Opens the allocation era of a fresh root at once, for processes started with the default
 * options (which would wait out the fencing bound on a tree that has no era yet).
 */
export async function openAllocationEra(connect: string, root: string): Promise<void> {
  await withZkClient(connect, async (zk) => {
    await zk.mkdirp(root);
    await enterLeaseEra(new ZkTree(root).eraStore(zk), 0, systemTimeSource);
  });
}

/** A logger that keeps messages, to assert on what was said. */
export function recordingLogger(): Logger & { messages: string[] } {
  const messages: string[] = [];
  return {
    messages,
    info: (_f, m) => void messages.push(m),
    warn: (_f, m) => void messages.push(m),
    error: (_f, m) => void messages.push(m),
  };
}

let instances = 0;

/** An embedded service on a ZooKeeper lease, and the lease itself. */
export async function startInstance(
  options: ZooKeeperMachineIdOptions,
  extra: { type?: 'max-peak' | 'min-granularity'; range?: { min: number; max: number } } = {},
): Promise<{
  service: EmbeddedIdService;
  lease: ZooKeeperMachineIdLease;
  provider: ZooKeeperMachineIdProvider;
}> {
  const provider = new ZooKeeperMachineIdProvider({ logger: silentLogger, ...FAST, ...options });
  let lease: ZooKeeperMachineIdLease | undefined;
  const service = await createEmbeddedIdService({
    machineIdProvider: {
      acquire: async (request) => {
        lease = await provider.acquire(
          extra.range === undefined ? request : { ...request, range: extra.range },
        );
        return lease;
      },
    },
    type: extra.type ?? 'min-granularity',
    logger: silentLogger,
    // Each instance stands for another host: only ZooKeeper keeps them apart, as in production.
    // Within the test worker's own scope, so files running side by side never share a lock.
    hostLockScope: `${process.env['VESTA_HOST_LOCK_SCOPE'] ?? 'default'}/zk-instance-${String(++instances)}`,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  if (lease === undefined) throw new Error('the service did not acquire a lease');
  return { service, lease, provider };
}

/**
 * Ends a session from outside: joins it with its id and password, closes it, and resolves once
 * ZooKeeper has closed it (it answers the close and then drops the connection). Fails when the
 * session was already gone, or after `timeoutMs`.
 *
 * The owner must not be able to reconnect meanwhile (route it through the TcpProxy of `tcpProxy.ts` and
 * `refuse()` first): joining the session drops the owner's connection, and an owner that
 * reconnects at once takes the session back while the close is in flight, a race that ZooKeeper
 * settles either way (and, when the close loses, can leave the session refusing new joins).
 */
export async function expireSession(
  connect: string,
  session: { id: Buffer; password: Buffer },
  timeoutMs = 10_000,
): Promise<void> {
  const { zk } = ZkClient.open(
    connect,
    { sessionTimeoutMs: 1000, connectTimeoutMs: timeoutMs, operationTimeoutMs: timeoutMs },
    session,
  );
  const { client } = zk;
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the session was not closed within ${timeoutMs} ms`)),
        timeoutMs,
      );
      client.once('expired', () => {
        clearTimeout(timer);
        reject(new Error('the session had expired already'));
      });
      client.once('connected', () => {
        client.once('disconnected', () => {
          clearTimeout(timer);
          resolve();
        });
        zk.close();
      });
    });
  } finally {
    zk.close();
  }
}

export { eventually } from '@vesta/testkit';
