import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { IdConverter, SERVER_MACHINE_ID_RANGE, silentLogger } from '@vesta/core';
import { createEmbeddedIdService } from '@vesta/embedded';
import { RedisMachineIdProvider } from '@vesta/redis';
import {
  machineIdRequest,
  openAllocationEraOf,
  runToExit,
  startRedisServer,
  VESTA_CLI,
  type ProcessResult,
  type RedisServer,
} from '@vesta/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditReport } from '../audit/AuditReport.js';
import type { LeaseTenure as TenureRow } from '@vesta/lease';
import { spawnVesta, type VestaProcess } from '../testing/spawnVesta.js';
import { makeId } from './makeCommand.js';

const ROOT = resolve(import.meta.dirname, '../../../..');
const codec = IdConverter.standard(0);
const dir = mkdtempSync(join(tmpdir(), 'vesta-audit-coordinator-'));
const processes: VestaProcess[] = [];
let redis: RedisServer | undefined;

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop('SIGKILL')));
  await redis?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const vesta = (args: readonly string[]): Promise<ProcessResult> =>
  runToExit(process.execPath, [...VESTA_CLI, ...args], ROOT);

/** `vesta rest` on port 0 leasing its machine id from `url` under `key`. */
function rest(url: string, key: string, flags: readonly string[] = []): VestaProcess {
  const p = spawnVesta('rest', [
    '--port',
    '0',
    '--state-dir',
    join(dir, key),
    '--coordinator',
    url,
    '--coordinator-key',
    key,
    ...flags,
  ]);
  processes.push(p);
  return p;
}

async function get<T>(port: number, path: string): Promise<T> {
  return (await (await fetch(`http://127.0.0.1:${port}${path}`)).json()) as T;
}

/** An id of the REST servers' layout (genMethod 2) from `machine` at the start of `unixMs`'s second. */
function planted(machine: number, unixMs: number): string {
  const date = new Date(Math.floor(unixMs / 1000) * 1000).toISOString();
  return String(makeId({ date, seq: '0', machine: String(machine), genMethod: '2' }));
}

describe('vesta audit --coordinator and vesta machine-ids history', () => {
  it('flags exactly the ids issued by a machine id at a time nobody held it, nothing on the servers’ own ids', async () => {
    const prefix = 'audit-history';
    const url = `${redis?.url ?? ''}/0?prefix=${prefix}`;
    await openAllocationEraOf(
      new RedisMachineIdProvider({
        url: redis?.url ?? '',
        prefix,
        eraWaitMs: 0,
        logger: silentLogger,
      }),
    );
    const a = rest(url, 'rest-a');
    const b = rest(url, 'rest-b');
    const [portA, portB] = await Promise.all([a.listening, b.listening]);
    const issued: string[] = [];
    for (const port of [portA, portB]) {
      issued.push(...(await get<{ ids: string[] }>(port, '/genids?count=500')).ids);
      issued.push(...(await get<{ ids: string[] }>(port, '/genuuids?count=20')).ids);
    }
    const machineOf = (id: string | undefined): number => codec.expId(BigInt(id ?? '0')).machine;
    const machineA = machineOf(issued[0]);
    const machineB = machineOf(issued[520]);
    await a.stop('SIGTERM'); // a clean release: its tenure ends at its final mark

    const history = await vesta(['machine-ids', 'history', '--json', '--coordinator', url]);
    expect(history.code).toBe(0);
    const tenures = history.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as TenureRow);
    const tenureOf = (holder: string) => tenures.find((t) => t.holder === holder);
    expect(tenureOf('rest-a')).toMatchObject({ machineId: machineA, ended: 'released' });
    expect(tenureOf('rest-b')).toMatchObject({ machineId: machineB, ended: 'held' });
    const onlyA = await vesta([
      ...['machine-ids', 'history', '--coordinator', url, '--machine-id', String(machineA)],
    ]);
    expect(onlyA.stdout).toMatch(
      new RegExp(`^${machineA}\\s+rest-a\\s+\\S+\\s+\\S+\\s+released$`, 'm'),
    );
    expect(onlyA.stdout).not.toContain('rest-b');

    const clean = join(dir, 'clean.txt');
    writeFileSync(clean, `${issued.join('\n')}\n`);
    const cleanAudit = await vesta(['audit', clean, '--coordinator', url]);
    expect(cleanAudit.code).toBe(0);
    const cleanReport = JSON.parse(cleanAudit.stdout) as AuditReport;
    expect(cleanReport.unleased).toMatchObject({ count: 0, notJudged: 0 });
    expect(cleanReport.vestaUuids.issuersReported).toBe(true);
    expect(cleanAudit.stderr).toContain('0 unleased (0 not judged)');

    // A machine id nobody held; and A's, a second after its tenure ended.
    const free = [...Array.from({ length: 100 }, (_, i) => 924 + i)].find(
      (m) => !tenures.some((t) => t.machineId === m),
    );
    const afterA = (tenureOf('rest-a')?.toMs ?? 0) + 1000;
    const plants = [planted(free ?? 0, Date.now()), planted(machineA, afterA)];
    const dirty = join(dir, 'dirty.txt');
    writeFileSync(dirty, `${[...issued, ...plants].join('\n')}\n`);
    const dirtyAudit = await vesta(['audit', dirty, '--coordinator', url]);
    expect(dirtyAudit.code).toBe(1);
    const dirtyReport = JSON.parse(dirtyAudit.stdout) as AuditReport;
    expect(dirtyReport.duplicates.count).toBe(0);
    expect(dirtyReport.unleased?.count).toBe(2);
    expect(dirtyReport.unleased?.examples.map((e) => [e.id, e.machine, e.line])).toEqual([
      [plants[0], free, issued.length + 1],
      [plants[1], machineA, issued.length + 2],
    ]);
    // Without --coordinator the same file is clean: only the journal tells.
    expect((await vesta(['audit', dirty])).code).toBe(0);
    await b.stop('SIGTERM');
  });

  it('reports the ids of a fixed embedded machine id beside leased servers as not managed, not unleased, and exits 0', async () => {
    const url = `${redis?.url ?? ''}/0?prefix=audit-fixed`;
    // The era opened without a claim: the store holds server machine ids only.
    expect((await vesta(['machine-ids', 'init', '--coordinator', url])).code).toBe(0);
    const server = rest(url, 'fixed-rest');
    const port = await server.listening;
    const leased = (await get<{ ids: string[] }>(port, '/genids?count=200')).ids;
    // An embedded service on machine id 5, set in its configuration: the coordinator, which
    // leases the servers' range only, never managed it.
    const embedded = await createEmbeddedIdService({
      machineId: 5,
      stateDir: join(dir, 'fixed-embedded'),
    });
    const fixed = (await embedded.genIds(100)).map(String);
    await embedded.close();
    const file = join(dir, 'fixed.txt');
    writeFileSync(file, `${[...leased, ...fixed].join('\n')}\n`);
    const audit = await vesta(['audit', file, '--coordinator', url]);
    const report = JSON.parse(audit.stdout) as AuditReport;
    expect(report.unleased).toMatchObject({
      count: 0,
      notJudged: 100,
      notManaged: { count: 100, machines: [5] },
    });
    expect(audit.stderr).toContain(
      '0 unleased (100 not judged, 100 of them of machine ids the coordinator does not manage: 5)',
    );
    expect(audit.code).toBe(0);

    // An id of a server machine id nobody held is still judged: the servers' range is managed.
    const tenures = (await vesta(['machine-ids', 'history', '--json', '--coordinator', url])).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as TenureRow);
    const free = Array.from({ length: 100 }, (_, i) => 924 + i).find(
      (m) => !tenures.some((t) => t.machineId === m),
    );
    const forged = planted(free ?? 0, Date.now());
    writeFileSync(file, `${[...leased, ...fixed, forged].join('\n')}\n`);
    const dirty = await vesta(['audit', file, '--coordinator', url]);
    expect(JSON.parse(dirty.stdout) as AuditReport).toMatchObject({
      unleased: { count: 1, examples: [{ id: forged, machine: free }], notJudged: 100 },
    });
    expect(dirty.code).toBe(1);
    await server.stop('SIGTERM');
  });

  it('judges nothing of a live holder whose claimed entry the journal trimmed: no unleased finding on its ids', async () => {
    const prefix = 'audit-trimmed';
    const url = `${redis?.url ?? ''}/0?prefix=${prefix}`;
    const churn = (key: string) =>
      new RedisMachineIdProvider({
        url: redis?.url ?? '',
        prefix,
        key,
        eraWaitMs: 0,
        journalRetention: 2,
        logger: silentLogger,
      });
    await openAllocationEraOf(churn('opener'));
    const a = rest(url, 'trim-a');
    const port = await a.listening;
    // Another instance starts and stops: its two entries push A's claimed entry out.
    const lease = await churn('trim-churn').acquire(machineIdRequest(SERVER_MACHINE_ID_RANGE));
    await lease.release?.();
    const history = await vesta(['machine-ids', 'history', '--json', '--coordinator', url]);
    expect(history.stdout).not.toContain('trim-a');
    // A's ids issued since: inside the journal's window, by a holder the journal no longer shows.
    const { ids } = await get<{ ids: string[] }>(port, '/genids?count=200');
    const file = join(dir, 'trimmed.txt');
    writeFileSync(file, `${ids.join('\n')}\n`);
    const audit = await vesta(['audit', file, '--coordinator', url]);
    const report = JSON.parse(audit.stdout) as AuditReport;
    expect(report.unleased).toMatchObject({ count: 0, notJudged: 200 });
    expect(audit.code).toBe(0);
    await a.stop('SIGTERM');
  });

  // Refused before any store is reached: side by side, up to vitest's maxConcurrency (5).
  it.concurrent.for(['5000', '1024', 'abc', '-1'])(
    'refuses history --machine-id %s before reaching the store (INVALID_ARGUMENT)',
    async (machineId, { expect }) => {
      // A store nobody listens on: a refusal that names the store came too late.
      const result = await vesta([
        ...['machine-ids', 'history', '--coordinator', 'redis://127.0.0.1:1/0'],
        ...['--machine-id', machineId],
      ]);
      expect(result.stderr).toContain(
        'INVALID_ARGUMENT: --machine-id must be a whole number from 0 to 1023',
      );
      expect(result.code).toBe(1);
    },
  );

  it('lists a journal with a corrupt entry and a holder key that forges table rows, one row per tenure', async () => {
    const prefix = 'audit-hostile';
    const url = `${redis?.url ?? ''}/0?prefix=${prefix}`;
    const forged = '7     forged-holder  2020-01-01T00:00:00.000Z  -  held';
    const provider = new RedisMachineIdProvider({
      url: redis?.url ?? '',
      prefix,
      key: `evil\n${forged}`,
      eraWaitMs: 0,
      logger: silentLogger,
    });
    // A start of the holder and its release: one tenure.
    await openAllocationEraOf(provider);
    // An entry no start writes: a time past any date (a Date cannot hold it).
    const corrupt = JSON.stringify({
      event: 'claimed',
      machineId: 9,
      holder: 'corrupt',
      instance: 'x',
      atMs: 9_000_000_000_000_000,
      floorMarkMs: 0,
    });
    const pushed = await runToExit(
      'redis-cli',
      ['-u', redis?.url ?? '', 'RPUSH', `{${prefix}}:history`, corrupt],
      ROOT,
    );
    expect(pushed.code).toBe(0);

    const history = await vesta(['machine-ids', 'history', '--coordinator', url]);
    expect(history.stderr).toMatch(/^the lease journal covers \S+ to \S+\n$/);
    expect(history.code).toBe(0);
    const rows = history.stdout.trim().split('\n');
    expect(rows).toHaveLength(2);
    expect(rows[1]).toContain(JSON.stringify(`evil\n${forged}`));
    const json = await vesta(['machine-ids', 'history', '--json', '--coordinator', url]);
    const tenures = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as TenureRow);
    expect(tenures.map((t) => [t.holder, t.ended])).toEqual([[`evil\n${forged}`, 'released']]);
  });
});

/** Vesta's millisecond layout with 16 sequence numbers a millisecond: a burst borrows time. */
const FEW_SEQ = JSON.stringify({
  fields: [
    { name: 'machine', bits: 10 },
    { name: 'seq', bits: 4 },
    { name: 'time', bits: 46 },
    { name: 'genMethod', bits: 2 },
    { name: 'type', bits: 1 },
    { name: 'version', bits: 1 },
  ],
  unitMs: 1,
  type: 1,
});

describe('vesta audit --coordinator on the ids of a released server', () => {
  it.each([
    ['millisecond ids issued at their full rate (16 a millisecond)', ['--layout', FEW_SEQ], true],
    [
      'max-peak ids under a custom epoch',
      ['--type', 'max-peak', '--epoch', '2020-01-01T00:00:00Z'],
      false,
    ],
  ])('covers %s up to the release, flagging none', async (_, flags, borrows) => {
    const prefix = `audit-released-${borrows ? 'borrowing' : 'epoch'}`;
    const url = `${redis?.url ?? ''}/0?prefix=${prefix}`;
    await openAllocationEraOf(
      new RedisMachineIdProvider({
        url: redis?.url ?? '',
        prefix,
        eraWaitMs: 0,
        logger: silentLogger,
      }),
    );
    const server = rest(url, `${prefix}-1`, flags);
    const port = await server.listening;
    // Ten batches at once, as fast as the sequence allows (time borrowed while the clock lags),
    // then a release at once: its final mark must reach the latest id.
    const batches = await Promise.all(
      Array.from({ length: 10 }, () => get<{ ids: string[] }>(port, '/genids?count=2000')),
    );
    await server.stop('SIGTERM');
    const file = join(dir, `${prefix}.txt`);
    writeFileSync(file, `${batches.flatMap((b) => b.ids).join('\n')}\n`);
    // The audit reads the ids with the server's type and epoch.
    const audit = await vesta(['audit', file, '--coordinator', url, ...flags]);
    const report = JSON.parse(audit.stdout) as AuditReport;
    expect(report.count).toBe(20_000);
    expect(report.unleased).toMatchObject({ count: 0, notJudged: 0 });
    expect(audit.code).toBe(0);
  });
});
