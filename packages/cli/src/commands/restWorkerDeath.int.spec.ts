import { join } from 'node:path';
import { IdConverter } from '@vesta/core';
import { describe, expect, it } from 'vitest';
import {
  expectUniqueAndOrderedPerMachine,
  machineOf,
} from '../testing/expectUniqueAndOrderedPerMachine.js';
import { getOnOwnConnection as get } from '../testing/getOnOwnConnection.js';
import { restIssue } from '../testing/restIssue.js';
import { startIdLoad } from '../testing/startIdLoad.js';
import { useRestClusters, type ClusterWorker } from '../testing/startRestCluster.js';

const codec = IdConverter.standard(0);

const { dir, startCluster } = useRestClusters();

describe('vesta rest --workers when a worker dies', () => {
  it('restarts a worker SIGKILLed under load on its own machine id, with no id repeated or going back', async () => {
    const cluster = await startCluster([
      '--machine-ids',
      '970-971',
      '--workers',
      '2',
      '--state-dir',
      join(dir(), 'kill'),
      '--type',
      'min-granularity',
      '--mark-window-ms',
      '250',
    ]);
    const victim = cluster.workers.find((w) => w.index === 0) as ClusterWorker;
    const issuer = restIssue(cluster.url, 1000);
    const load = startIdLoad({ clients: 8, issue: issuer.issue });
    // Clients connecting after the restart: node:cluster hands new connections to the workers
    // in turn, so some reach the replacement (the first clients' connections all went to the
    // surviving worker when they reconnected).
    const lateIssuer = restIssue(cluster.url, 1000);
    let late: ReturnType<typeof startIdLoad> | undefined;
    try {
      await load.until('20,000 ids received', () => load.received() >= 20_000, 120_000);
      const inFlight = load.inFlight();
      const restarted = cluster.nextLog((l) => l['msg'] === 'worker 0 restarted');
      process.kill(victim.pid, 'SIGKILL');
      const entry = await restarted;
      expect(inFlight).toBeGreaterThan(0);
      expect(entry['machineId']).toBe(victim.machineId);
      expect(entry['pid']).not.toBe(victim.pid);
      await load.stop();
      late = startIdLoad({ clients: 4, issue: lateIssuer.issue });
      const started = late;
      await started.until(
        'ids from the restarted worker',
        () => started.batches.some((b) => machineOf(b) === victim.machineId),
        120_000,
      );
    } finally {
      await Promise.all([load.stop(), late?.stop()]);
      issuer.close();
      lateIssuer.close();
    }
    expectUniqueAndOrderedPerMachine([...load.batches, ...(late?.batches ?? [])]);
    // Only the killed worker's connections failed; nothing else did.
    expect([...load.errors.keys()].filter((code) => !code.startsWith('NETWORK:'))).toEqual([]);
    expect(late?.failures).toEqual([]);
    expect((await get(`${cluster.url}/health`)).status).toBe(200);
    expect(await cluster.process.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  }, 400_000);

  it('drops, not strands, the connections handed to a worker that dies before taking them', async () => {
    const cluster = await startCluster([
      '--machine-ids',
      '972-973',
      '--workers',
      '2',
      '--no-state-dir',
    ]);
    const victim = cluster.workers.find((w) => w.index === 0) as ClusterWorker;
    // Stopped, the worker reads nothing: the connections handed to it wait in its IPC channel.
    process.kill(victim.pid, 'SIGSTOP');
    let answered = 0;
    let settleAnswered!: () => void;
    const threeAnswered = new Promise<void>((resolve) => (settleAnswered = resolve));
    // Each on a connection of its own: the primary hands them to the workers in turn.
    const requests = Array.from({ length: 6 }, () =>
      get(`${cluster.url}/genid`).then(
        (answer) => {
          if (++answered === 3) settleAnswered();
          return answer.status;
        },
        (error: NodeJS.ErrnoException) => error.code ?? error.message,
      ),
    );
    await threeAnswered;
    const restarted = cluster.nextLog((l) => l['msg'] === 'worker 0 restarted');
    process.kill(victim.pid, 'SIGKILL');
    // node:cluster's own round robin kept such a connection open in the primary, unanswered,
    // until the client gave up (here `get`'s 20 s timeout, an error without a code).
    expect((await Promise.all(requests)).sort()).toEqual([
      200,
      200,
      200,
      'ECONNRESET',
      'ECONNRESET',
      'ECONNRESET',
    ]);
    await restarted;
    const machines = new Set<number>();
    for (let i = 0; i < 4; i++) {
      const { status, body } = await get(`${cluster.url}/genid`);
      expect(status).toBe(200);
      machines.add(codec.expId(BigInt(JSON.parse(body).id)).machine);
    }
    expect([...machines].sort()).toEqual([972, 973]);
    expect(await cluster.process.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  }, 200_000);
});
