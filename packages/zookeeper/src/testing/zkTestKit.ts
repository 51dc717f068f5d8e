import { randomUUID } from 'node:crypto';
import { silentLogger, sleep, type Logger } from '@vesta/core';
import { createEmbeddedIdService, type EmbeddedIdService } from '@vesta/embedded';
import { ZooKeeperMachineIdProvider } from '../ZooKeeperMachineIdProvider.js';
import type { ZooKeeperMachineIdLease } from '../ZooKeeperMachineIdLease.js';
import type { ZooKeeperMachineIdOptions } from '../ZooKeeperMachineIdOptions.js';
import { ZkClient } from '../zk/ZkClient.js';

/** Short timings for tests: session 1 s, refresh 100 ms, fence 400 ms, reclaim 1.2 s. */
export const FAST = {
  sessionTimeoutMs: 1000,
  refreshIntervalMs: 100,
  fenceAfterMs: 400,
  reclaimAfterMs: 1200,
  connectTimeoutMs: 3000,
  operationTimeoutMs: 2000,
  ownerWaitMs: 1500,
} as const;

/** A fresh root per test, so tests never see each other's allocations. */
export function testRoot(): string {
  return `/test-${randomUUID().slice(0, 8)}`;
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
    hostLockScope: `zk-instance-${String(++instances)}`,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  if (lease === undefined) throw new Error('the service did not acquire a lease');
  return { service, lease, provider };
}

/** Expires a session from outside: joins it with its id and password, then closes it. */
export async function expireSession(
  connect: string,
  session: { id: Buffer; password: Buffer },
): Promise<void> {
  const { zk, whenConnected } = ZkClient.open(
    connect,
    { sessionTimeoutMs: 1000, connectTimeoutMs: 3000, operationTimeoutMs: 3000 },
    session,
  );
  await whenConnected;
  zk.close();
  await sleep(50);
}

/** Polls `check` until it is true, at most `timeoutMs`; returns whether it became true. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await check()) return true;
    await sleep(25);
  }
  return check();
}
