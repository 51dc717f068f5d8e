import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  EMBEDDED_MACHINE_ID_RANGE,
  GenMethod,
  IdType,
  silentLogger,
  VestaError,
  type MachineIdRequest,
} from '@vesta/core';
import zookeeper from 'node-zookeeper-client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ZooKeeperMachineIdProvider } from './ZooKeeperMachineIdProvider.js';
import { ZooKeeperAdmin } from './ZooKeeperAdmin.js';
import { leaseControl } from './testing/leaseControl.js';
import {
  eventually,
  expireSession,
  FAST,
  recordingLogger,
  startInstance,
  testRoot,
  withZkClient,
} from './testing/zkTestKit.js';
import { startTcpProxy, type TcpProxy } from '@vesta/testkit';

const connect = inject('zookeeperConnect');
const request = (
  range = EMBEDDED_MACHINE_ID_RANGE,
  type: number = IdType.MIN_GRANULARITY,
): MachineIdRequest => ({
  range,
  genMethod: GenMethod.EMBEDDED,
  type,
});
const provider = (
  root: string,
  extra: Partial<ConstructorParameters<typeof ZooKeeperMachineIdProvider>[0]> = {},
) => new ZooKeeperMachineIdProvider({ connect, root, logger: silentLogger, ...FAST, ...extra });
/** Key `k` on a clock `aheadMs` ahead of the host's, allowed to be that far off ZooKeeper's. */
const startAhead = (root: string, aheadMs: number) =>
  startInstance({
    connect,
    root,
    key: 'k',
    clock: () => Date.now() + aheadMs,
    maxClockSkewMs: 3_600_000,
  });
const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'vesta-zk-state-'));
  dirs.push(dir);
  return dir;
};
const proxies: TcpProxy[] = [];
afterAll(async () => {
  dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  await Promise.all(proxies.map((proxy) => proxy.close()));
});

describe('ZooKeeperMachineIdProvider', () => {
  // A key's id across restarts, the state dir's key, 20 concurrent start-ups,
  // MACHINE_ID_EXHAUSTED and the reclaim of a dead owner's id after the reclaim delay, above its
  // mark, are the conformance suite's (ZooKeeperConformance), as on every store.
  it('refuses to start with CLOCK_BEHIND_HIGH_WATER_MARK, naming the gap, when the clock is far behind the stored mark', async () => {
    const root = testRoot();
    const a = await startAhead(root, 60_000);
    await a.service.genId();
    await a.service.close();
    const error = await provider(root, { key: 'k', maxClockSkewMs: 3_600_000 })
      .acquire(request())
      .catch((e: unknown) => e);
    expect(VestaError.is(error, 'CLOCK_BEHIND_HIGH_WATER_MARK')).toBe(true);
    expect((error as VestaError).details?.['gapMs']).toBeGreaterThan(50_000);
  });

  it('waits for the clock to pass the stored mark when the gap is within tolerance, then issues after it', async () => {
    const root = testRoot();
    const a = await startAhead(root, 1500);
    const last = await a.service.genId();
    await a.service.close();
    // b waits up to 1.5 s before it issues: FAST's 400 ms fence, which a busy machine can trip
    // in that time (issuing then pauses, rightly), is not what this test is about.
    const b = await startInstance({
      connect,
      root,
      key: 'k',
      maxClockSkewMs: 3_600_000,
      fenceAfterMs: 3000,
      reclaimAfterMs: 6000,
    });
    expect(b.lease.machineId).toBe(a.lease.machineId);
    expect(b.lease.notBeforeMs).toBeGreaterThan(Date.now() - 1500);
    const next = await b.service.genId();
    expect(next).toBeGreaterThan(last);
    expect(b.service.expId(next).time).toBeGreaterThan(b.service.expId(last).time);
    await b.service.close();
  });

  it("refuses to start with CLOCK_OUT_OF_SYNC when this host's clock is far from ZooKeeper's", async () => {
    const error = await provider(testRoot(), { clock: () => Date.now() - 30_000 })
      .acquire(request())
      .catch((e: unknown) => e);
    expect(VestaError.is(error, 'CLOCK_OUT_OF_SYNC')).toBe(true);
  });

  it('re-takes its id after its session expires, without a gap in uniqueness', async () => {
    const root = testRoot();
    const proxy = await startTcpProxy(connect);
    proxies.push(proxy);
    const a = await startInstance({ connect: proxy.address, root, key: 'exp' });
    const before = await a.service.genIds(100);
    const sessionHex = (): string => leaseControl(a.lease).session().id.toString('hex');
    const oldSession = sessionHex();
    // The owner stays away while its session is closed, then finds it expired on reconnecting.
    proxy.refuse();
    await expireSession(connect, leaseControl(a.lease).session());
    proxy.forward();
    expect(await eventually(() => sessionHex() !== oldSession)).toBe(true);
    const admin = new ZooKeeperAdmin({ connect, root });
    expect(
      await eventually(async () => {
        const row = (await admin.list()).find((x) => x.machineId === a.lease.machineId);
        return row?.alive === true && row.session !== oldSession && a.lease.valid;
      }),
    ).toBe(true);
    expect(a.lease.lost).toBe(false);
    const after = await a.service.genIds(100);
    expect(new Set([...before, ...after]).size).toBe(200);
    await a.service.close();
  });

  it('stops for good, saying so, when its id is released by hand from under it', async () => {
    const root = testRoot();
    const logger = recordingLogger();
    const a = await startInstance({ connect, root, key: 'victim', logger });
    await a.service.genId();
    await new ZooKeeperAdmin({ connect, root }).release(a.lease.machineId, { force: true });
    expect(await eventually(() => a.lease.lost)).toBe(true);
    const error = await a.service.genId().catch((e: unknown) => e);
    expect(VestaError.is(error, 'MACHINE_ID_LEASE_LOST')).toBe(true);
    expect(a.service.health()).toMatchObject({ ok: false, code: 'MACHINE_ID_LEASE_LOST' });
    expect(logger.messages.some((m) => m.includes('no longer held by this instance'))).toBe(true);
    await a.service.close();
  });

  describe('when ZooKeeper is down at start', () => {
    const deadPort = async (): Promise<string> =>
      new Promise((resolve) => {
        const server = createServer().listen(0, '127.0.0.1', () => {
          const address = server.address();
          server.close(() =>
            resolve(
              `127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 1}`,
            ),
          );
        });
      });

    it('starts on the cached id and mark, with a warning, and issues after the cached mark', async () => {
      const root = testRoot();
      const stateDir = tempDir();
      const a = await startInstance({ connect, root, stateDir, reclaimAfterMs: 10_000 });
      const last = (await a.service.genIds(50)).at(-1) ?? 0n;
      await a.service.close();
      const logger = recordingLogger();
      const down = await deadPort();
      const b = await startInstance({
        connect: down,
        root,
        stateDir,
        logger,
        connectTimeoutMs: 300,
        reclaimAfterMs: 10_000,
      });
      expect(b.lease.machineId).toBe(a.lease.machineId);
      expect(logger.messages.some((m) => m.includes('starting on the machine id cached'))).toBe(
        true,
      );
      expect(await b.service.genId()).toBeGreaterThan(last);
      await b.service.close();
    });

    it('fails with ZOOKEEPER_UNAVAILABLE when the fallback is off or nothing is cached', async () => {
      const root = testRoot();
      const stateDir = tempDir();
      const a = await provider(root, { stateDir }).acquire(request());
      await a.release();
      const down = await deadPort();
      for (const extra of [{ stateDir, fallbackToCache: false }, { stateDir: tempDir() }, {}]) {
        const error = await new ZooKeeperMachineIdProvider({
          connect: down,
          root,
          logger: silentLogger,
          ...FAST,
          connectTimeoutMs: 200,
          ...extra,
        })
          .acquire(request())
          .catch((e: unknown) => e);
        expect(VestaError.is(error, 'ZOOKEEPER_UNAVAILABLE')).toBe(true);
      }
    });
  });
});

describe('ZooKeeperMachineIdProvider and its lease journal', () => {
  it('refuses with ZOOKEEPER_UNAVAILABLE when the claim cannot be journaled, handing out no lease', async () => {
    const root = testRoot();
    await withZkClient(connect, async (zk) => {
      await zk.mkdirp(root);
      // A journal folder nobody may create entries under: the append fails after the claim won.
      const readOnly = [
        new zookeeper.ACL(zookeeper.Permission.READ, new zookeeper.Id('world', 'anyone')),
      ];
      await new Promise<void>((done, fail) =>
        zk.client.create(`${root}/history`, readOnly, zookeeper.CreateMode.PERSISTENT, (e) =>
          e ? fail(e) : done(),
        ),
      );
      const failure = await provider(root, { key: 'unjournaled-1' })
        .acquire(request())
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(VestaError.is(failure, 'ZOOKEEPER_UNAVAILABLE')).toBe(true);
      expect(String(failure)).toContain('NO_AUTH');
      // The claim won, then its session closed with the failed start: no live holder is left.
      const rows = await new ZooKeeperAdmin({ connect, root }).list();
      expect(rows.map((r) => [r.owner, r.alive])).toEqual([['unjournaled-1', false]]);
      expect(await zk.getChildren(`${root}/history`)).toEqual([]);
    });
  });
});
