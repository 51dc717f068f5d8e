import { writeFileSync } from 'node:fs';
import { silentLogger, VestaError, type MachineIdRange } from '@vesta/core';
import { sleep } from '@vesta/core/kit';
import { createEmbeddedIdService, type EmbeddedIdService } from '@vesta/embedded';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturingLogger } from '../capturingLogger.js';
import { eventually } from '../eventually.js';
import { issueContinuously, type IssueLoops } from '../issueContinuously.js';
import type { TcpProxy } from '../startTcpProxy.js';
import { machineIdRequest } from '../machineIdRequest.js';
import { TestResources } from '../TestResources.js';
import type {
  ConformanceCoordinator,
  ConformanceLease,
  ConformanceProvider,
  ConformanceProviderOptions,
  MachineIdProviderHarness,
} from './MachineIdProviderHarness.js';

const CHURN_CYCLES = 200;
const CHURN_WORKERS = 8;
const CHURN_RANGE = { min: 0, max: 15 };
const CHURN_TIME_LIMIT_MS = 90_000;
/**
 * The connection deadline of the clients in the cases that break the connections of a running
 * coordinator (cut, killed, wiped), the providers' default: once the coordinator answers again, a
 * client still waiting on a connection the break left hanging gives it up after this long
 * (ZooKeeper's is replaced then, resuming its session). The profiles' deadlines, generous for a
 * coordinator just started on a loaded machine, kept those cases waiting up to 15 s. These
 * clients first connect to a warm coordinator; a newcomer to a wiped one keeps its profile's.
 */
const BREAK_CONNECT_TIMEOUT_MS = 5000;

const request = machineIdRequest;

let instances = 0;

/** An embedded service on a lease of `provider` (optionally in another range), and the lease. */
async function startService(
  provider: ConformanceProvider,
  range?: MachineIdRange,
): Promise<{ service: EmbeddedIdService; lease: ConformanceLease }> {
  let lease: ConformanceLease | undefined;
  const service = await createEmbeddedIdService({
    machineIdProvider: {
      acquire: async (r) => {
        lease = await provider.acquire(range === undefined ? r : { ...r, range });
        return lease;
      },
    },
    type: 'min-granularity',
    logger: silentLogger,
    // Each instance stands for another host: only the coordinator keeps them apart.
    hostLockScope: `${process.env['VESTA_HOST_LOCK_SCOPE'] ?? 'default'}/conformance-${String(++instances)}`,
  });
  if (lease === undefined) throw new Error('the service did not acquire a lease');
  return { service, lease };
}

/**
 * Declares the machine-id provider conformance suite (issue #10): the behaviours every provider
 * (ZooKeeper, Redis, PostgreSQL, etcd) shows against its real coordinator, which `harness` starts
 * (one per suite), kills, restarts, wipes and reaches through a TCP proxy. See the testkit README
 * for the harness contract. Call it at the top level of an `*.int.spec.ts` file.
 */
export function describeMachineIdProviderConformance(harness: MachineIdProviderHarness): void {
  describe(`${harness.name} machine-id provider (conformance)`, () => {
    let coordinator: ConformanceCoordinator | undefined;
    const resources = new TestResources();
    const services: EmbeddedIdService[] = [];

    beforeAll(async () => {
      coordinator = await harness.startCoordinator();
    });
    afterAll(async () => {
      await Promise.all(services.map((s) => s.close().catch(() => undefined)));
      await resources.dispose();
      await coordinator?.dispose();
    });

    const server = (): ConformanceCoordinator => {
      if (coordinator === undefined) throw new Error(`${harness.name} is not started`);
      return coordinator;
    };
    const provider = (
      namespace: string,
      extra: Partial<ConformanceProviderOptions> = {},
    ): ConformanceProvider =>
      harness.createProvider({
        address: server().address,
        namespace,
        profile: 'fast',
        logger: silentLogger,
        ...extra,
      });
    const started = async (p: ConformanceProvider, range?: MachineIdRange) => {
      const instance = await startService(p, range);
      services.push(instance.service);
      return instance;
    };
    const proxy = (): Promise<TcpProxy> => resources.proxy(server().address);
    const admin = (namespace: string) => harness.admin(server().address, namespace);

    it('gives 20 concurrent start-ups 20 distinct ids, all listed live under their keys', async () => {
      const ns = harness.namespace();
      const leases = await Promise.all(
        Array.from({ length: 20 }, (_, i) => provider(ns, { key: `pod-${i}` }).acquire(request())),
      );
      expect(new Set(leases.map((l) => l.machineId)).size).toBe(20);
      const rows = await admin(ns).list();
      expect(rows.filter((r) => r.alive).map((r) => r.owner)).toHaveLength(20);
      expect(new Set(rows.map((r) => r.owner))).toEqual(
        new Set(Array.from({ length: 20 }, (_, i) => `pod-${i}`)),
      );
      await Promise.all(leases.map((l) => l.release?.()));
    });

    it('gives a key its old id back after a restart, and another key another id', async () => {
      const ns = harness.namespace();
      const first = await provider(ns, { key: 'orders-1' }).acquire(request());
      const other = await provider(ns, { key: 'orders-2' }).acquire(request());
      expect(other.machineId).not.toBe(first.machineId);
      await first.release?.();
      const again = provider(ns, { key: 'orders-1' });
      const lease = await again.acquire(request());
      expect(lease.machineId).toBe(first.machineId);
      expect(again.stats.reused).toBe(1);
      await Promise.all([lease.release?.(), other.release?.()]);
    });

    it('keeps the key in the state dir when none is given, so a restart gets the same id', async () => {
      const ns = harness.namespace();
      const stateDir = resources.tempDir('vesta-conformance-');
      const first = await provider(ns, { stateDir }).acquire(request());
      await first.release?.();
      const stranger = await provider(ns, { key: 'someone-else' }).acquire(request());
      const again = await provider(ns, { stateDir }).acquire(request());
      expect(again.machineId).toBe(first.machineId);
      expect(stranger.machineId).not.toBe(first.machineId);
      await Promise.all([again.release?.(), stranger.release?.()]);
    });

    it('refuses a start with MACHINE_ID_EXHAUSTED when every id of the range is live', async () => {
      const ns = harness.namespace();
      const range = { min: 924, max: 926 };
      const leases = await Promise.all(
        [0, 1, 2].map((i) => provider(ns, { key: `srv-${i}` }).acquire(request(range))),
      );
      expect(leases.map((l) => l.machineId).sort()).toEqual([924, 925, 926]);
      const fourth = provider(ns, { key: 'srv-3' });
      const error = await fourth.acquire(request(range)).catch((e: unknown) => e);
      expect(VestaError.is(error, 'MACHINE_ID_EXHAUSTED')).toBe(true);
      expect(fourth.stats.refused).toBe(1);
      await Promise.all(leases.map((l) => l.release?.()));
    });

    it('stops issuing once the coordinator is unreachable past the fencing bound, and resumes with the same id', async () => {
      const ns = harness.namespace();
      const { fenceAfterMs } = harness.timings('fast');
      const cut = await proxy();
      const { service, lease } = await started(
        provider(ns, {
          address: cut.address,
          key: 'cut',
          connectTimeoutMs: BREAK_CONNECT_TIMEOUT_MS,
        }),
      );
      await service.genId();
      expect(await eventually(() => lease.stats.renewals > 0, 20 * fenceAfterMs)).toBe(true);

      cut.blackHole();
      expect(await eventually(() => !lease.valid, 20 * fenceAfterMs)).toBe(true);
      expect(lease.stats).toMatchObject({ fenced: true, lost: false });
      expect(service.health().ok).toBe(false);
      await expect(service.genId()).rejects.toMatchObject({ code: 'MACHINE_ID_LEASE_LOST' });

      cut.forward();
      expect(await eventually(() => lease.valid, 30_000)).toBe(true);
      expect(lease.stats).toMatchObject({ fenced: false, lost: false });
      expect(typeof (await service.genId())).toBe('bigint');
      expect((await admin(ns).list()).map((r) => [r.machineId, r.owner])).toEqual([
        [lease.machineId, 'cut'],
      ]);
      await service.close();
    });

    it('keeps its id after renewals whose writes landed but whose replies were lost', async () => {
      const ns = harness.namespace();
      const { fenceAfterMs } = harness.timings('fast');
      const cut = await proxy();
      const { service, lease } = await started(
        provider(ns, {
          address: cut.address,
          key: 'unanswered',
          connectTimeoutMs: BREAK_CONNECT_TIMEOUT_MS,
        }),
      );
      expect(await eventually(() => lease.stats.renewals > 0, 20 * fenceAfterMs)).toBe(true);
      // Turns whose requests reach the store (and are applied) and whose answers never come
      // back: three missed turns, so that a store which writes every other turn wrote at least once.
      const missed = lease.stats.missedRenewals;
      cut.dropReplies();
      expect(await eventually(() => lease.stats.missedRenewals >= missed + 3, 60_000)).toBe(true);
      expect(cut.repliesDropped).toBeGreaterThan(0);
      cut.forward();
      // An ambiguous answer is read again, never taken for a loss: the lease goes on.
      const renewals = lease.stats.renewals;
      expect(
        await eventually(() => lease.stats.renewals >= renewals + 2 || lease.stats.lost, 30_000),
      ).toBe(true);
      expect(lease.stats).toMatchObject({ lost: false });
      expect(await eventually(() => lease.valid, 30_000)).toBe(true);
      expect(typeof (await service.genId())).toBe('bigint');
      await service.close();
    });

    it('reclaims a dead owner’s id only after the reclaim delay, issuing after the dead owner’s mark', async () => {
      const ns = harness.namespace();
      const { reclaimAfterMs } = harness.timings('fast');
      const range = { min: 7, max: 7 };
      const dead = await started(provider(ns), range);
      const ofDead = await dead.service.genIds(50);
      const lastOfDead = ofDead.at(-1);
      harness.abandon(dead.lease);
      const diedAt = performance.now();

      const early = provider(ns);
      const refused = await early.acquire(request(range)).catch((e: unknown) => e);
      expect(VestaError.is(refused, 'MACHINE_ID_EXHAUSTED')).toBe(true);
      const [row] = await admin(ns).list();
      expect(row).toMatchObject({ machineId: 7, alive: expect.any(Boolean) });
      const deadMarkMs = row?.markMs ?? Number.NaN;

      let taker: ConformanceProvider | undefined;
      let lease: ConformanceLease | undefined;
      const deadline = performance.now() + 20 * reclaimAfterMs;
      while (lease === undefined && performance.now() < deadline) {
        taker = provider(ns);
        lease = await taker.acquire(request(range)).catch((e: unknown) => {
          if (!VestaError.is(e, 'MACHINE_ID_EXHAUSTED')) throw e;
          return undefined;
        });
        if (lease === undefined) await sleep(50);
      }
      expect(lease?.machineId).toBe(7);
      expect(taker?.stats.reclaimed).toBe(1);
      // The reclaim age runs from the dead owner's last renewal, a fence bound at most before it died.
      expect(performance.now() - diedAt).toBeGreaterThan(
        reclaimAfterMs - harness.timings('fast').fenceAfterMs,
      );
      expect(lease?.notBeforeMs).toBeGreaterThan(deadMarkMs);
      if (lease === undefined || taker === undefined) return;
      const took = lease;
      const successor = await started({ acquire: async () => took, stats: taker.stats }, range);
      const timeOf = (s: EmbeddedIdService, id: bigint | undefined): number =>
        id === undefined ? Number.NaN : s.transTime(s.expId(id).time).getTime();
      const first = await successor.service.genId();
      expect(timeOf(successor.service, first)).toBeGreaterThan(timeOf(dead.service, lastOfDead));
      // Nothing the successor issues lies at or below the dead owner's published mark.
      const fresh = [first, ...(await successor.service.genIds(199))];
      const deadSet = new Set(ofDead);
      expect(fresh.filter((id) => deadSet.has(id))).toEqual([]);
      expect(fresh.filter((id) => timeOf(successor.service, id) < deadMarkMs)).toEqual([]);
      await successor.service.close();
    });

    it(
      `issues no duplicate and never has two live owners of an id over ${CHURN_CYCLES} start/stop/kill cycles on 16 ids`,
      { timeout: CHURN_TIME_LIMIT_MS + 30_000 },
      async () => {
        const ns = harness.namespace();
        const seen = new Set<bigint>();
        const totals = {
          duplicates: 0,
          cycles: 0,
          refused: 0,
          killed: 0,
          doubleOwners: 0,
          fenced: 0,
        };
        const reclaimed = { count: 0 };
        const holders = new Map<number, Set<ConformanceLease>>();
        const deadline = performance.now() + CHURN_TIME_LIMIT_MS;
        const worker = async (w: number): Promise<void> => {
          while (totals.cycles < CHURN_CYCLES && performance.now() < deadline) {
            // Keyless: a new identity every start, like a container with a new address.
            const p = provider(ns);
            let instance: Awaited<ReturnType<typeof startService>>;
            try {
              instance = await startService(p, CHURN_RANGE);
            } catch (error) {
              if (!VestaError.is(error, 'MACHINE_ID_EXHAUSTED')) throw error;
              totals.refused++;
              await sleep(50);
              continue;
            }
            const cycle = ++totals.cycles;
            reclaimed.count += p.stats.reclaimed;
            const { service, lease } = instance;
            const others = holders.get(lease.machineId) ?? new Set();
            for (const other of others) if (other.valid) totals.doubleOwners++;
            others.add(lease);
            holders.set(lease.machineId, others);
            const count = 20 + ((cycle * 7 + w) % 60);
            for (let i = 0; i < count; i++) {
              let id: bigint;
              try {
                id = await service.genId();
              } catch (error) {
                // Fenced: a renewal came late on a loaded machine; issuing resumes on the next one.
                if (!VestaError.is(error, 'MACHINE_ID_LEASE_LOST') || lease.lost) throw error;
                totals.fenced++;
                await sleep(20);
                continue;
              }
              if (seen.has(id)) totals.duplicates++;
              seen.add(id);
            }
            if (cycle % 3 === 0) {
              totals.killed++;
              harness.abandon(lease);
            } else {
              others.delete(lease);
              await service.close();
            }
          }
        };
        await Promise.all(Array.from({ length: CHURN_WORKERS }, (_, w) => worker(w)));
        const rows = await admin(ns).list();
        // BENCHMARKS.md's churn figures: VESTA_CHURN_REPORT=<file> keeps this run's counts.
        const report = process.env['VESTA_CHURN_REPORT'];
        if (report !== undefined) {
          writeFileSync(
            report,
            `${JSON.stringify({ ...totals, ids: seen.size, reclaimed: reclaimed.count, allocations: rows.length })}\n`,
          );
        }
        expect(totals.cycles).toBeGreaterThanOrEqual(CHURN_CYCLES);
        expect(totals.duplicates).toBe(0);
        expect(totals.doubleOwners).toBe(0);
        expect(totals.killed).toBeGreaterThan(0);
        expect(reclaimed.count).toBeGreaterThan(0);
        expect(
          rows.every((r) => r.machineId >= CHURN_RANGE.min && r.machineId <= CHURN_RANGE.max),
        ).toBe(true);
      },
    );

    it('stops issuing while the coordinator is killed, and resumes with the same ids once it is restarted, its lease journal kept', async () => {
      const ns = harness.namespace();
      const { fenceAfterMs } = harness.timings('outage');
      // A claim and its release journaled before the crash, to be read back after the restart (one
      // crash for both: a restart of the coordinator costs more than the rest of the check).
      const journaled = harness.namespace();
      const durable = await provider(journaled, { key: 'durable' }).acquire(request());
      await durable.release?.();
      const before = await admin(journaled).history();
      expect(before.entries.map((e) => e.event)).toEqual(['claimed', 'released']);
      const instances = await Promise.all(
        [0, 1, 2].map((i) =>
          started(
            provider(ns, {
              key: `gen-${i}`,
              profile: 'outage',
              connectTimeoutMs: BREAK_CONNECT_TIMEOUT_MS,
            }),
          ),
        ),
      );
      const machineIds = instances.map((x) => x.lease.machineId);
      const issuing = issueContinuously(instances.map(({ service }) => service));
      try {
        expect(await eventually(() => issuing.seen.size > 0)).toBe(true);
        await server().stop({ kill: true });
        const fenced = await eventually(
          () => instances.every(({ service }) => !service.health().ok),
          20 * fenceAfterMs,
        );
        expect(fenced).toBe(true);
        const frozenAt = issuing.seen.size;
        const missed = instances.map(({ lease }) => lease.stats.missedRenewals);
        // Two more renewal turns of each, all missed while the coordinator is down.
        expect(
          await eventually(() =>
            instances.every(({ lease }, i) => lease.stats.missedRenewals >= (missed[i] ?? 0) + 2),
          ),
        ).toBe(true);
        expect(issuing.seen.size).toBe(frozenAt);

        await server().restart();
        expect(
          await eventually(() => instances.every(({ service }) => service.health().ok), 30_000),
        ).toBe(true);
        const atResume = issuing.seen.size;
        expect(await eventually(() => issuing.seen.size > atResume)).toBe(true);
        await issuing.stop();
        expect(issuing.errors.get('MACHINE_ID_LEASE_LOST')).toBeGreaterThan(0);
        expect(instances.map((x) => x.lease.machineId)).toEqual(machineIds);
        expect(instances.some((x) => x.lease.lost)).toBe(false);
        expect(issuing.duplicates()).toBe(0);
        expect((await admin(journaled).history()).entries).toEqual(before.entries);
      } finally {
        await issuing.stop();
        await Promise.all(instances.map(({ service }) => service.close()));
      }
    });

    it('hands out no id of a wiped store before the holder is fenced, and the holder stops for good on seeing it', async () => {
      const ns = harness.namespace();
      const { eraWaitMs } = harness.timings('dataLoss');
      // One id for both: the newcomer can only take the holder's (claims spread over a range).
      const range = { min: 5, max: 5 };
      // The first instance of a new namespace: nothing to wait for.
      const said: string[] = [];
      const logger = {
        info: () => undefined,
        warn: (_fields: unknown, message: string) => void said.push(message),
        error: (_fields: unknown, message: string) => void said.push(message),
      };
      const holder = await started(
        provider(ns, {
          key: 'holder',
          profile: 'dataLoss',
          logger,
          connectTimeoutMs: BREAK_CONNECT_TIMEOUT_MS,
        }),
        range,
      );
      const fromHolder = issueContinuously([holder.service]);
      let fromNewcomer: IssueLoops | undefined;
      try {
        expect(await eventually(() => fromHolder.seen.size > 0)).toBe(true);
        await server().wipe();

        const startedAt = performance.now();
        const newcomer = await started(
          provider(ns, { key: 'newcomer', profile: 'dataLoss', eraWait: 'default' }),
          range,
        );
        const waitedMs = performance.now() - startedAt;
        const holderValidAtHandover = holder.lease.valid;
        const issuedByHolderAtHandover = fromHolder.seen.size;
        const loops = issueContinuously([newcomer.service]);
        fromNewcomer = loops;
        expect(await eventually(() => loops.seen.size > 0)).toBe(true);
        expect(await eventually(() => holder.lease.lost, 30_000)).toBe(true);
        await fromHolder.stop();
        await loops.stop();

        expect(newcomer.lease.machineId).toBe(holder.lease.machineId);
        expect(waitedMs).toBeGreaterThanOrEqual(eraWaitMs);
        expect(holderValidAtHandover).toBe(false);
        expect(fromHolder.seen.size).toBe(issuedByHolderAtHandover);
        expect([...loops.seen].filter((id) => fromHolder.seen.has(id))).toEqual([]);
        expect(fromHolder.duplicates() + loops.duplicates()).toBe(0);
        await expect(holder.service.genId()).rejects.toMatchObject({
          code: 'MACHINE_ID_LEASE_LOST',
        });
        // The holder says why it stopped, in words an operator can act on.
        expect(
          said.some((m) => m.includes('lost its data')),
          said.join('\n'),
        ).toBe(true);
        // The holder wrote nothing into the new store.
        const rows = await admin(ns).list();
        expect(rows.map((r) => [r.machineId, r.owner, r.alive])).toEqual([
          [newcomer.lease.machineId, 'newcomer', true],
        ]);
      } finally {
        await fromHolder.stop();
        await fromNewcomer?.stop();
      }
    });

    it('lists allocations and releases by hand: a dead id at once, a live one only with force (its holder stops for good)', async () => {
      const ns = harness.namespace();
      const live = await started(provider(ns, { key: 'live' }));
      const gone = await provider(ns, { key: 'gone' }).acquire(request());
      await gone.release?.();
      const rows = await admin(ns).list();
      expect(rows.map((r) => [r.machineId, r.owner, r.alive])).toEqual(
        [
          [live.lease.machineId, 'live', true],
          [gone.machineId, 'gone', false],
        ].sort((a, b) => Number(a[0]) - Number(b[0])),
      );

      await admin(ns).release(gone.machineId);
      expect((await admin(ns).list()).find((r) => r.machineId === gone.machineId)?.owner).toBe(
        null,
      );
      const refused = await admin(ns)
        .release(live.lease.machineId)
        .catch((e: unknown) => e);
      expect(VestaError.is(refused, 'INVALID_ARGUMENT')).toBe(true);
      const missing = await admin(ns)
        .release(1000)
        .catch((e: unknown) => e);
      expect(VestaError.is(missing, 'NOT_FOUND')).toBe(true);

      await admin(ns).release(live.lease.machineId, { force: true });
      expect(await eventually(() => live.lease.lost, 20_000)).toBe(true);
      await expect(live.service.genId()).rejects.toMatchObject({ code: 'MACHINE_ID_LEASE_LOST' });
    });

    it('declares a fresh namespace new: the first start takes an id without the era wait', async () => {
      const ns = harness.namespace();
      const done = await admin(ns).init();
      expect(done.where).toContain(ns.replace(/^\//, ''));
      expect(await admin(ns).list()).toEqual([]);
      // With the era wait a new namespace needs: only the open era lets it start at once.
      const logger = capturingLogger();
      const lease = await provider(ns, { key: 'first', eraWait: 'default', logger }).acquire(
        request(),
      );
      expect(logger.warnings.map((w) => w.message)).toEqual([]);
      expect((await admin(ns).list()).map((r) => [r.machineId, r.owner, r.alive])).toEqual([
        [lease.machineId, 'first', true],
      ]);
      await lease.release?.();
    });

    it('refuses to declare a namespace with history new (COORDINATOR_NOT_NEW), changing nothing', async () => {
      const ns = harness.namespace();
      const lease = await provider(ns, { key: 'old' }).acquire(request());
      await lease.release?.();
      const before = await harness.dump(server().address, ns);
      const refused = await admin(ns)
        .init()
        .catch((e: unknown) => e);
      expect(VestaError.is(refused, 'COORDINATOR_NOT_NEW')).toBe(true);
      expect(String(refused)).toContain('is not new');
      expect(await harness.dump(server().address, ns)).toEqual(before);
      expect((await admin(ns).list()).map((r) => r.owner)).toEqual(['old']);
    });

    it('journals a claim before its lease is handed out and a release with its final mark, kept for the next start', async () => {
      const ns = harness.namespace();
      const first = await provider(ns, { key: 'journaled' }).acquire(request());
      // The lease is in hand: its `claimed` entry is already in the store.
      const held = await admin(ns).history();
      expect(held.entries).toEqual([
        expect.objectContaining({
          event: 'claimed',
          machineId: first.machineId,
          holder: 'journaled',
          floorMarkMs: 0,
        }),
      ]);
      expect(held.tenures.map((t) => [t.machineId, t.holder, t.ended])).toEqual([
        [first.machineId, 'journaled', 'held'],
      ]);
      await first.release?.();
      const [row] = await admin(ns).list();
      // A later start (another process) finds the history in the store, and adds to it.
      const again = await provider(ns, { key: 'journaled' }).acquire(request());
      const history = await admin(ns).history();
      expect(history.entries.map((e) => e.event)).toEqual(['claimed', 'released', 'claimed']);
      expect(history.entries[1]?.markMs).toBe(row?.markMs);
      expect(history.entries[2]?.floorMarkMs).toBe(row?.markMs);
      expect(history.tenures.map((t) => [t.holder, t.ended, t.toMs])).toEqual([
        ['journaled', 'released', row?.markMs],
        ['journaled', 'held', history.covered.toMs],
      ]);
      expect(history.covered.fromMs).toBe(history.entries[0]?.atMs);
      await again.release?.();
    });

    it('closes a dead holder’s tenure at the floor mark of the claim that reclaimed its id', async () => {
      const ns = harness.namespace();
      const { reclaimAfterMs } = harness.timings('fast');
      const range = { min: 9, max: 9 };
      const dead = await provider(ns, { key: 'dead' }).acquire(request(range));
      harness.abandon(dead);
      let lease: ConformanceLease | undefined;
      const deadline = performance.now() + 20 * reclaimAfterMs;
      while (lease === undefined && performance.now() < deadline) {
        lease = await provider(ns, { key: 'heir' })
          .acquire(request(range))
          .catch((e: unknown) => {
            if (!VestaError.is(e, 'MACHINE_ID_EXHAUSTED')) throw e;
            return undefined;
          });
        if (lease === undefined) await sleep(50);
      }
      expect(lease?.machineId).toBe(9);
      const { entries, tenures } = await admin(ns).history();
      const floorMarkMs = entries.at(-1)?.floorMarkMs;
      expect(floorMarkMs).toBeGreaterThan(0);
      expect(tenures.map((t) => [t.holder, t.ended, t.toMs])).toEqual([
        ['dead', 'reclaimed', floorMarkMs],
        ['heir', 'held', expect.any(Number)],
      ]);
      await lease?.release?.();
    });

    it('trims the journal to its retention, keeping the newest entries', async () => {
      const ns = harness.namespace();
      const keep = 4;
      for (let i = 0; i < 4; i++) {
        const lease = await provider(ns, { key: `cycle-${i}`, journalRetention: keep }).acquire(
          request(),
        );
        await lease.release?.();
      }
      const { entries } = await admin(ns).history();
      expect(entries.map((e) => [e.event, e.holder])).toEqual([
        ['claimed', 'cycle-2'],
        ['released', 'cycle-2'],
        ['claimed', 'cycle-3'],
        ['released', 'cycle-3'],
      ]);
    });

    it('lets exactly one of five concurrent inits of a fresh namespace win', async () => {
      const ns = harness.namespace();
      const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => admin(ns).init()));
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
      expect(won).toHaveLength(1);
      expect(refused.map((e: unknown) => VestaError.is(e, 'COORDINATOR_NOT_NEW'))).toEqual([
        true,
        true,
        true,
        true,
      ]);
    });
  });
}
