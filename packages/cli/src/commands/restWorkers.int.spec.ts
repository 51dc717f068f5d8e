import { readdir } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { decodeUuid, IdConverter } from '@vesta/core';
import { PostgresAdmin } from '@vesta/postgres';
import { runToExit, VESTA_CLI } from '@vesta/testkit';
import { describe, expect, inject, it } from 'vitest';
import { expectUniqueAndOrderedPerMachine } from '../testing/expectUniqueAndOrderedPerMachine.js';
import { getOnOwnConnection as get } from '../testing/getOnOwnConnection.js';
import { restIssue } from '../testing/restIssue.js';
import { spawnVesta } from '../testing/spawnVesta.js';
import { startIdLoad } from '../testing/startIdLoad.js';
import { useRestClusters } from '../testing/startRestCluster.js';

const ROOT = resolve(import.meta.dirname, '../../../..');
const codec = IdConverter.standard(0);

const { running, dir, startCluster } = useRestClusters();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// A worker that dies (SIGKILLed under load, or before taking its connections):
// restWorkerDeath.int.spec.ts.
describe('vesta rest --workers', () => {
  it('serves from two workers on one port under two machine ids, 100,000 ids from concurrent clients without a repeat, health and metrics over both, and SIGTERM stops all', async () => {
    const stateDir = join(dir(), 'two');
    const cluster = await startCluster([
      '--machine-ids',
      '960-961',
      '--workers',
      '2',
      '--state-dir',
      stateDir,
    ]);
    expect(cluster.workers.map((w) => w.machineId).sort()).toEqual([960, 961]);
    expect(new Set(cluster.workers.map((w) => w.pid)).size).toBe(2);

    const issuer = restIssue(cluster.url, 1000);
    const load = startIdLoad({ clients: 8, issue: issuer.issue });
    try {
      await load.until('100,000 ids received', () => load.received() >= 100_000, 120_000);
    } finally {
      await load.stop();
      issuer.close();
    }
    expect(load.failures).toEqual([]);
    const perMachine = expectUniqueAndOrderedPerMachine(load.batches);
    expect([...perMachine.keys()].sort()).toEqual([960, 961]);
    const total = load.received();

    // Whichever worker answers, /health and /metrics speak for both.
    for (let i = 0; i < 2; i++) {
      const health = await get(`${cluster.url}/health`);
      expect(health.status).toBe(200);
      expect(JSON.parse(health.body)).toEqual({
        status: 'ok',
        workers: [
          { worker: 0, machineId: 960, status: 'ok' },
          { worker: 1, machineId: 961, status: 'ok' },
        ],
      });
      const metrics = await get(`${cluster.url}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.body).toMatch(new RegExp(`^vesta_ids_issued_total ${total}$`, 'm'));
    }

    // UUIDv7s from both workers, each under its own machine id: none repeated.
    const uuids = (
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          const answer = await get(`${cluster.url}/genuuids?count=1000`);
          expect(answer.status).toBe(200);
          return (JSON.parse(answer.body) as { ids: string[] }).ids;
        }),
      )
    ).flat();
    expect(new Set(uuids).size).toBe(20_000);
    const uuidMachines = new Set(uuids.map((uuid) => decodeUuid(uuid).machine));
    expect([...uuidMachines].sort()).toEqual([960, 961]);
    expect(new Set(uuids.map((uuid) => decodeUuid(uuid).genMethod))).toEqual(new Set([2]));

    // The host lock holds across processes: another cluster reaching for 961 is refused whole.
    const intruder = spawnVesta('rest', [
      '--port',
      '0',
      '--machine-ids',
      '961-962',
      '--workers',
      '2',
      '--no-state-dir',
    ]);
    running.push(intruder);
    expect((await intruder.exited).code).toBe(1);
    expect(intruder.stderr()).toMatch(/^vesta rest: MACHINE_ID_IN_USE: .*machine id 961/m);
    expect((await get(`${cluster.url}/genid`)).status).toBe(200);

    const exit = await cluster.process.stop('SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(cluster.workers.filter((w) => isAlive(w.pid))).toEqual([]);
    const persisted = cluster.logs.filter((l) => l['msg'] === 'stopped; high-water mark persisted');
    expect(persisted.map((l) => l['worker']).sort()).toEqual([0, 1]);
    const marks = (await readdir(stateDir)).filter((name) => name.startsWith('time-mark-'));
    expect(marks.map((name) => /-m(\d+)-/.exec(name)?.[1]).sort()).toEqual(['960', '961']);
  }, 400_000);

  it('serves from one process, saying why, when --machine-ids holds one id', async () => {
    const single = await startCluster(['--machine-ids', '981-981', '--no-state-dir']);
    const listening = single.logs.find((l) => String(l['msg']).startsWith('vesta rest listening'));
    expect(listening).toMatchObject({ machineId: 981, workers: 1 });
    // On a machine of one core, one worker is what the cores ask for: nothing to explain.
    expect(
      single.logs.some((l) => String(l['msg']).includes('holds 1 id(s), one per worker')),
    ).toBe(availableParallelism() > 1);
    expect(
      codec.expId(BigInt(JSON.parse((await get(`${single.url}/genid`)).body).id)).machine,
    ).toBe(981);
    expect(await single.process.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  }, 200_000);

  it('leases one id per worker from --coordinator (PostgreSQL), under the keys <key>#0 and <key>#1', async () => {
    const url = new URL(inject('postgresUrl'));
    url.searchParams.set('schema', `rest_workers_${process.pid}`);
    const args = [
      '--coordinator',
      url.toString(),
      '--coordinator-key',
      'rest-pg',
      '--workers',
      '2',
    ];
    // A new schema: declared new first, as an operator would, so that the workers do not wait out
    // the era (machineIdsInit.int.spec.ts shows that wait and the init).
    const init = await runToExit(
      process.execPath,
      [...VESTA_CLI, 'machine-ids', 'init', '--coordinator', url.toString()],
      ROOT,
    );
    expect(init.code).toBe(0);
    const cluster = await startCluster([...args, '--state-dir', join(dir(), 'pg-workers')]);
    const ids = cluster.workers.map((w) => w.machineId).sort((a, b) => a - b);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    expect(ids.every((id) => id >= 924 && id <= 1023)).toBe(true);
    const seen = new Set<number>();
    for (let i = 0; i < 40 && seen.size < 2; i++) {
      const { body } = await get(`${cluster.url}/genid`);
      seen.add(codec.expId(BigInt(JSON.parse(body).id)).machine);
    }
    expect([...seen].sort((a, b) => a - b)).toEqual(ids);
    // /health lists each worker's leased machine id as ok, and the store each lease as alive.
    const health = JSON.parse((await get(`${cluster.url}/health`)).body) as {
      workers: { worker: number; machineId: number; status: string }[];
    };
    expect(health.workers.map((w) => [w.worker, w.machineId, w.status])).toEqual(
      cluster.workers.map((w) => [w.index, w.machineId, 'ok']),
    );
    const admin = new PostgresAdmin({
      url: inject('postgresUrl'),
      schema: `rest_workers_${process.pid}`,
    });
    const live = (await admin.list()).map((a) => `${a.machineId}:${a.owner}:${a.alive}`);
    expect(live.sort()).toEqual(
      cluster.workers.map((w) => `${w.machineId}:rest-pg#${w.index}:true`).sort(),
    );
    expect(await cluster.process.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    const owners = (await admin.list()).map((a) => `${a.machineId}:${a.owner}`);
    expect(owners.sort()).toEqual(
      cluster.workers.map((w) => `${w.machineId}:rest-pg#${w.index}`).sort(),
    );
    // The same keys get the same ids back.
    const again = await startCluster([...args, '--state-dir', join(dir(), 'pg-workers')]);
    expect(again.workers.map((w) => w.machineId).sort((a, b) => a - b)).toEqual(ids);
    expect(await again.process.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  }, 300_000);

  // Concurrent: each start is refused on its own, and the unreachable coordinator's refusal is
  // mostly waiting (its connection attempts), which the others need not queue behind.
  it.concurrent.for([
    [
      ['--machine-ids', '980-980', '--workers', '2'],
      /^vesta rest: INVALID_OPTIONS: --workers 2 needs 2 machine ids, --machine-ids 980-980 holds 1/m,
    ],
    [
      ['--machine-id', '980', '--workers', '2'],
      /^vesta rest: INVALID_OPTIONS: --workers 2 needs a machine id per worker/m,
    ],
    [
      ['--coordinator', 'mysql://db:3306', '--workers', '2'],
      /^vesta rest: INVALID_OPTIONS: --coordinator must be one of/m,
    ],
    [
      ['--coordinator', 'redis://127.0.0.1:1', '--workers', '2'],
      /^vesta rest: COORDINATOR_UNAVAILABLE: /m,
    ],
  ] as const)(
    'refuses %j with a coded error and exit code 1',
    { timeout: 60_000 },
    async ([args, stderr], { expect }) => {
      // Not in `running`: afterEach would kill a refusal another test is still waiting for.
      const refused = spawnVesta('rest', ['--port', '0', '--no-state-dir', ...args]);
      try {
        expect((await refused.exited).code).toBe(1);
        expect(refused.stderr()).toMatch(stderr);
      } finally {
        await refused.stop('SIGKILL');
      }
    },
  );
});
