import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatUuid, IdConverter, silentLogger, type UuidForm } from '@vesta/core';
import { createEmbeddedIdService, type EmbeddedIdService } from '@vesta/embedded';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeId } from '../commands/makeCommand.js';
import { auditExitCode } from './AuditReport.js';
import { fileIdLines } from './idLines.js';
import { runAudit, type AuditOptions } from './runAudit.js';

const EPOCH_MS = Date.UTC(2025, 0, 1);
const UUID_FORMS: readonly UuidForm[] = ['canonical', 'hex', 'base32'];
const NO_FINDINGS = { count: 0, examples: [] };

describe('runAudit on ids issued by real embedded services', () => {
  let dir: string;
  let services: EmbeddedIdService[];
  /** Ids of machines 11, 12 and 13 in issuing order (batches of each in turn), then UUIDs. */
  let clean: string[];
  let options: AuditOptions;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vesta-audit-spec-'));
    services = await Promise.all(
      [11, 12, 13].map((machineId) =>
        createEmbeddedIdService({
          machineId,
          stateDir: join(dir, `state-${machineId}`),
          logger: silentLogger,
        }),
      ),
    );
    clean = [];
    for (let round = 0; round < 4; round++) {
      for (const service of services) clean.push(...(await service.genIds(2500)).map(String));
    }
    for (const [i, service] of services.entries()) {
      const uuids = await service.genUuids(300);
      // Every UUID form, in turns: the audit reads them all.
      clean.push(...uuids.map((uuid, j) => formatUuid(uuid, UUID_FORMS[(i + j) % 3])));
    }
    options = {
      codec: IdConverter.standard(EPOCH_MS),
      how: { form: 'decimal', scrambler: undefined },
      nowMs: Date.now(),
    };
  });

  afterAll(async () => {
    await Promise.all(services.map((service) => service.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  const audit = async (
    name: string,
    lines: readonly string[],
    more: Partial<AuditOptions> = {},
  ) => {
    const path = join(dir, name);
    writeFileSync(path, `${lines.join('\n')}\n`);
    return (await runAudit(fileIdLines(path), { ...options, ...more, tempDir: dir })).report;
  };

  it('finds nothing in their ids and UUIDs, and counts each issuer', async () => {
    const report = await audit('clean.txt', clean);
    expect(report).toMatchObject({
      count: 30_900,
      ids: 30_000,
      uuids: 900,
      duplicates: { count: 0, distinct: 0, examples: [] },
      future: NO_FINDINGS,
      beforeEpoch: NO_FINDINGS,
      machineOutOfRange: NO_FINDINGS,
      unparseable: NO_FINDINGS,
      orderBreaks: NO_FINDINGS,
    });
    expect(
      report.machines.map(({ kind, machine, genMethod, count, orderBreaks }) => ({
        kind,
        machine,
        genMethod,
        count,
        orderBreaks,
      })),
    ).toEqual([
      { kind: 'id', machine: 11, genMethod: 0, count: 10_000, orderBreaks: 0 },
      { kind: 'id', machine: 12, genMethod: 0, count: 10_000, orderBreaks: 0 },
      { kind: 'id', machine: 13, genMethod: 0, count: 10_000, orderBreaks: 0 },
      { kind: 'uuid', machine: 11, genMethod: 0, count: 300, orderBreaks: 0 },
      { kind: 'uuid', machine: 12, genMethod: 0, count: 300, orderBreaks: 0 },
      { kind: 'uuid', machine: 13, genMethod: 0, count: 300, orderBreaks: 0 },
    ]);
    expect(auditExitCode(report, true)).toBe(0);
  });

  it('finds exactly a planted duplicate, future id, misplaced machine id and garbage line', async () => {
    const lastOf11 = clean[2499] as string;
    const nowS = Math.floor(Date.now() / 1000);
    const future = String(
      makeId({ time: String(nowS - EPOCH_MS / 1000 + 86_400), seq: '0', machine: '14' }),
    );
    const misplaced = String(
      makeId({ time: String(nowS - EPOCH_MS / 1000), seq: '0', machine: '950', genMethod: '0' }),
    );
    // The copy of machine 11's latest id follows it: a duplicate, not an order break. A blank
    // line counts for the line numbers, and is no finding.
    const dirty = [
      ...clean.slice(0, 2500),
      lastOf11,
      ...clean.slice(2500, 5000),
      'not-an-id',
      future,
      ...clean.slice(5000),
      '',
      misplaced,
    ];
    const report = await audit('dirty.txt', dirty);
    expect(report).toMatchObject({
      count: 30_903,
      duplicates: {
        count: 1,
        distinct: 1,
        examples: [{ id: lastOf11, times: 2, lines: [2500, 2501] }],
      },
      future: { count: 1, examples: [{ line: 5003, id: future }] },
      beforeEpoch: NO_FINDINGS,
      machineOutOfRange: {
        count: 1,
        examples: [{ line: 30_905, id: misplaced, machine: 950, genMethod: 0, range: '0-923' }],
      },
      unparseable: { count: 1, examples: [{ line: 5002, text: 'not-an-id' }] },
      orderBreaks: NO_FINDINGS,
    });
    expect(auditExitCode(report, false)).toBe(1);
  });

  it('finds duplicates that fall in different sort runs', async () => {
    const first = clean[0] as string;
    const middle = clean[15_000] as string;
    // 30,000 ids in runs of 5,000: the copies lie six and three runs from their originals.
    const report = await audit('runs.txt', [...clean, first, middle], { runSize: 5000 });
    expect(report.duplicates).toEqual({
      count: 2,
      distinct: 2,
      examples: [
        { id: first, times: 2, lines: [1, 30_901] },
        { id: middle, times: 2, lines: [15_001, 30_902] },
      ].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1)),
    });
    expect(readdirSync(dir).filter((name) => name.startsWith('vesta-audit-'))).toEqual([]);
  });
});
