import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedisServer, startReplicatedRedis, type ReplicatedRedis } from '@vesta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { auditIds } from '../testing/auditIds.js';
import { restIssue, type RestIssuer } from '../testing/restIssue.js';
import { spawnVesta, type VestaProcess } from '../testing/spawnVesta.js';
import { startIdLoad, type IdLoad } from '../testing/startIdLoad.js';

const dir = mkdtempSync(join(tmpdir(), 'vesta-redis-replicas-'));
let open: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of open.reverse()) await close().catch(() => undefined);
  open = [];
});

/** `vesta rest` on port 0 leasing its machine id from `url` under `key`. */
function rest(url: string, key: string): VestaProcess {
  const p = spawnVesta('rest', [
    '--port',
    '0',
    '--state-dir',
    join(dir, `${key}-${randomUUID()}`),
    '--coordinator',
    url,
    '--coordinator-key',
    key,
  ]);
  open.push(() => p.stop('SIGKILL'));
  return p;
}

/** `run.until(what, check)`, its timeout error carrying the tail of each server's output. */
async function until(
  run: IdLoad,
  what: string,
  check: () => boolean,
  servers: Record<string, VestaProcess>,
): Promise<void> {
  await run.until(what, check, 30_000).catch((error: unknown) => {
    const tails = Object.entries(servers).map(
      ([name, p]) =>
        `--- ${name} stdout:\n${p.stdout().slice(-40).join('\n')}\n--- ${name} stderr:\n${p.stderr().slice(-4000)}`,
    );
    throw new Error([(error as Error).message, ...tails].join('\n'));
  });
}

/** A load of 2 REST clients on `port`. */
function load(port: number): IdLoad {
  const issuer: RestIssuer = restIssue(`http://127.0.0.1:${port}`, 100);
  const running = startIdLoad({ clients: 2, issue: issuer.issue });
  open.push(async () => {
    await running.stop();
    issuer.close();
  });
  return running;
}

describe('vesta rest on Redis with replicas', () => {
  it('warns at start when the URL opts out with minReplicas=0, naming the failover window', async () => {
    const redis = await startRedisServer();
    open.push(() => redis.dispose());
    const server = rest(`${redis.url}?prefix=w&minReplicas=0&eraWaitMs=0`, 'w');
    await server.listening;
    expect(server.stdout().join('\n')).toMatch(
      /minReplicas=0: .*for up to fenceAfterMs \(8000 ms\): duplicate ids/,
    );
  });

  it('takes minReplicas and the lease timings from a redis+sentinel:// URL: refused while no replica acknowledges; under load through a failover, no id twice', async () => {
    const set: ReplicatedRedis = await startReplicatedRedis();
    open.push(() => set.dispose());
    const url =
      `${set.sentinel.url}?prefix=cli&minReplicas=1&eraWaitMs=0` +
      // A replica's acknowledgement is waited for up to refreshIntervalMs: room for a loaded machine.
      '&refreshIntervalMs=500&fenceAfterMs=2000&operationTimeoutMs=1000';
    await set.cutOffReplica();
    const refused = rest(url, 'a');
    expect((await refused.exited).code).toBe(1);
    expect(refused.stderr()).toMatch(
      /COORDINATOR_UNAVAILABLE.*0 of the 1 Redis replica\(s\) minReplicas needs acknowledged the claim of machine id \d+ within 500 ms; the claim was withdrawn/,
    );
    await set.resumeReplica();
    const a = rest(url, 'a');
    const onA = load(await a.listening);
    await until(onA, 'A issues', () => onA.received() > 2000, { a });
    // The replica goes silent, then the primary dies and Sentinel promotes the replica.
    await set.cutOffReplica();
    await set.failOver();
    await set.returnPrimaryAsReplica();
    const b = rest(url, 'b');
    const onB = load(await b.listening);
    const aBefore = onA.received();
    await until(onB, 'B issues', () => onB.received() > 2000, { a, b });
    await until(onA, 'A issues again', () => onA.received() > aBefore + 2000, { a, b });
    await onA.stop();
    await onB.stop();
    const all = new Set<string>();
    let total = 0;
    for (const run of [onA, onB]) {
      const audit = auditIds(run.batches);
      expect({ duplicates: audit.duplicateCount, backwards: audit.backwardCount }).toEqual({
        duplicates: 0,
        backwards: 0,
      });
      for (const batch of run.batches) {
        for (const id of batch.ids) all.add(id);
        total += batch.ids.length;
      }
    }
    expect(all.size).toBe(total);
  });
});

process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
