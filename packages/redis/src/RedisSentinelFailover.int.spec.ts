import { randomUUID } from 'node:crypto';
import { silentLogger, type IdService } from '@vesta/core';
import { createEmbeddedIdService } from '@vesta/embedded';
import {
  capturingLogger,
  caughtAsync,
  eventually,
  issueContinuously,
  startReplicatedRedis,
  type ReplicatedRedis,
} from '@vesta/testkit';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisMachineIdProvider } from './RedisMachineIdProvider.js';
import type { RedisMachineIdOptions } from './RedisMachineIdOptions.js';

let open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.reverse()) await close().catch(() => undefined);
  open = [];
});

async function replicated(): Promise<ReplicatedRedis> {
  const set = await startReplicatedRedis();
  open.push(() => set.dispose());
  return set;
}

/**
 * An embedded service on the one machine id 0 (so every start wants the same id), as on a host
 * of its own (`host`: the host lock's scope, which would refuse a second holder on one host).
 */
async function service(options: RedisMachineIdOptions, host = 'host-a'): Promise<IdService> {
  const ids = await createEmbeddedIdService({
    machineIdProvider: new RedisMachineIdProvider({
      refreshIntervalMs: 250,
      fenceAfterMs: 2000,
      operationTimeoutMs: 1000,
      eraWaitMs: 0,
      logger: silentLogger,
      ...options,
    }),
    serverMachineIdStart: 1,
    hostLockScope: `${host}-${randomUUID()}`,
  });
  open.push(() => ids.close());
  return ids;
}

/**
 * Creates the prefix's era with a start of key `a` (id 0 is then `a`'s) and its release, and
 * waits until the replica has them.
 */
async function createEra(
  set: ReplicatedRedis,
  prefix: string,
  options: Partial<RedisMachineIdOptions>,
): Promise<void> {
  const first = await service({ url: set.sentinel.url, prefix, key: 'a', ...options });
  await first.close();
  await set.replicated();
}

describe('Redis primary, replica and Sentinel: a failover to a replica that missed writes', () => {
  it('with an explicit minReplicas=0 (the control): the promoted replica hands the holder’s id to its key’s next start while the holder still issues, and the start said so', async () => {
    const set = await replicated();
    const prefix = `f-${randomUUID().slice(0, 8)}`;
    await createEra(set, prefix, { minReplicas: 0 });
    await set.cutOffReplica();
    const logger = capturingLogger();
    // The holder keeps the dead primary's address, with the default fence.
    const a = await service({
      url: set.primary.url,
      prefix,
      key: 'a',
      minReplicas: 0,
      fenceAfterMs: 8000,
      logger,
    });
    expect(logger.warnings.map((w) => w.message).join('\n')).toMatch(
      /minReplicas=0: .*for up to fenceAfterMs \(8000 ms\): duplicate ids/,
    );
    await set.failOver();
    // The key's next start (a restart elsewhere) finds its id released on the promoted replica.
    const b = await service({ url: set.sentinel.url, prefix, key: 'a', minReplicas: 0 }, 'host-b');
    expect(b.info().machine).toBe(a.info().machine);
    // Two healthy holders of one machine id: the window the warning names.
    expect(typeof (await a.genId())).toBe('bigint');
    expect(typeof (await b.genId())).toBe('bigint');
  });

  it('with default options: a claim no replica acknowledged is refused and withdrawn; after the failover nothing is issued twice, and the holder comes back with a replica', async () => {
    const set = await replicated();
    const prefix = `d-${randomUUID().slice(0, 8)}`;
    await createEra(set, prefix, {});
    await set.cutOffReplica();
    const refused = await caughtAsync(() => service({ url: set.sentinel.url, prefix, key: 'a' }));
    expect(refused.code).toBe('COORDINATOR_UNAVAILABLE');
    expect(refused.message).toMatch(
      /0 of the 1 Redis replica\(s\) minReplicas needs acknowledged the claim of machine id 0 within 250 ms \(minReplicas is 1 because the primary is Sentinel's\); the claim was withdrawn/,
    );
    // Withdrawn: no live key holds the id until it expires.
    const onPrimary = new Redis(set.primary.url);
    try {
      expect(await onPrimary.keys(`{${prefix}}:live:*`)).toEqual([]);
    } finally {
      onPrimary.disconnect();
    }
    await set.resumeReplica();
    // The replica is online again: the claim is acknowledged.
    const a = await service({ url: set.sentinel.url, prefix, key: 'a' });
    const loops = issueContinuously([a]);
    try {
      await set.cutOffReplica();
      await set.failOver();
      // The promoted replica has the claim: a newcomer finds the only id held (live, or used
      // within the reclaim delay) and is refused.
      const b = await caughtAsync(() =>
        service({ url: set.sentinel.url, prefix, key: 'b' }, 'host-b'),
      );
      expect(b.code).toBe('MACHINE_ID_EXHAUSTED');
      // Fenced: renewals on the new primary alone do not count (it has no replica yet).
      expect(await eventually(() => !a.health().ok, 10_000)).toBe(true);
      expect(a.health()).toMatchObject({ ok: false, code: 'MACHINE_ID_LEASE_LOST' });
      await set.returnPrimaryAsReplica();
      const before = loops.seen.size;
      // The holder's renewals count again: it issues.
      expect(await eventually(() => loops.seen.size > before + 100, 30_000)).toBe(true);
    } finally {
      await loops.stop();
    }
    expect(loops.duplicates()).toBe(0);
  });

  it('with default options on a primary’s own URL: one acknowledgement once it reports a replica, so a silent replica fences the holder', async () => {
    const set = await replicated();
    const prefix = `p-${randomUUID().slice(0, 8)}`;
    const logger = capturingLogger();
    const a = await service({
      url: set.primary.url,
      prefix,
      key: 'a',
      logger: { ...logger, info: (fields, message) => logger.warn(fields, message) },
    });
    expect(logger.warnings.map((w) => w.message)).toContain(
      'the Redis primary has 1 online replica(s): each claim and renewal waits for one to acknowledge it',
    );
    expect(a.health()).toMatchObject({ ok: true });
    await set.cutOffReplica();
    expect(await eventually(() => !a.health().ok, 10_000)).toBe(true);
    await set.resumeReplica();
    expect(await eventually(() => a.health().ok, 20_000)).toBe(true);
  });
});
