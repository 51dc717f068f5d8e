import { machineIdRanges } from '@vesta/core';
import { describe, expect, it } from 'vitest';
import { AuditChecks, type AuditCheckOptions } from './AuditChecks.js';
import type { AuditedId } from './AuditedIdReader.js';

const EPOCH_MS = Date.UTC(2025, 0, 1);
const NOW_MS = Date.UTC(2026, 5, 1);
const OPTIONS: AuditCheckOptions = {
  epochMs: EPOCH_MS,
  nowMs: NOW_MS,
  futureToleranceMs: 60_000,
  examples: 10,
  idRanges: machineIdRanges({ machineBits: 10, genMethodBits: 2 }),
};

const id = (fields: Partial<AuditedId> = {}): AuditedId => ({
  kind: 'id',
  value: 1000n,
  unixMs: NOW_MS,
  machine: 5,
  genMethod: 0,
  ...fields,
});

function checked(ids: readonly AuditedId[], options: Partial<AuditCheckOptions> = {}) {
  const checks = new AuditChecks({ ...OPTIONS, ...options });
  ids.forEach((value, i) => checks.check(value, i + 1));
  return checks.report();
}

describe('AuditChecks', () => {
  it.each([
    [0, 0, 0],
    [923, 0, 0],
    [924, 0, 1],
    [923, 1, 1],
    [924, 1, 0],
    [1023, 2, 0],
    [923, 2, 1],
    [1000, 3, 1],
  ])('machine id %i under genMethod %i: %i out of range', (machine, genMethod, found) => {
    expect(checked([id({ machine, genMethod })]).machineOutOfRange.count).toBe(found);
  });

  it("holds a Vesta UUIDv7 to the audited layout's ranges, none for a layout without genMethod", () => {
    // A sonyflake service's UUIDs carry its 16-bit machine id and genMethod 0.
    const sonyflake = [id({ kind: 'uuid', machine: 30_000, genMethod: 0 })];
    expect(checked(sonyflake, { idRanges: undefined }).machineOutOfRange.count).toBe(0);
    expect(checked(sonyflake).machineOutOfRange.count).toBe(1);
  });

  it("reports no issuer findings of a column of other issuers' v7 UUIDs, whose few passing the check are chance", () => {
    // 1 in 4,096 foreign v7s passes the check: its fields are random (here before the epoch,
    // out of range); the 4,095 others carry no issuer.
    const foreign = Array.from({ length: 4096 }, (_, i) =>
      i === 7
        ? id({
            kind: 'uuid',
            value: BigInt(i),
            machine: 60_000,
            genMethod: 3,
            unixMs: EPOCH_MS - 1,
          })
        : id({ kind: 'uuid', value: BigInt(i), machine: undefined, genMethod: undefined }),
    );
    const report = checked(foreign);
    expect(report.vestaUuids).toEqual({ count: 1, issuersReported: false });
    expect([report.beforeEpoch.count, report.machineOutOfRange.count]).toEqual([0, 0]);
    expect(report.machines).toEqual([]);
    // A column of ours reports them.
    const ours = foreign.map((u) => ({
      ...u,
      machine: u.machine ?? 5,
      genMethod: u.genMethod ?? 0,
    }));
    const trusted = checked(ours);
    expect(trusted.vestaUuids).toEqual({ count: 4096, issuersReported: true });
    expect([trusted.beforeEpoch.count, trusted.machineOutOfRange.count]).toEqual([1, 1]);
  });

  it('holds a Vesta UUIDv7 to the Vesta ranges, its 16-bit machine field included', () => {
    const report = checked([
      id({ kind: 'uuid', machine: 1023, genMethod: 2 }),
      id({ kind: 'uuid', machine: 1024, genMethod: 2 }),
    ]);
    expect(report.machineOutOfRange.examples).toEqual([
      {
        line: 2,
        id: '00000000-0000-0000-0000-0000000003e8',
        machine: 1024,
        genMethod: 2,
        range: '924-1023',
      },
    ]);
  });

  it('checks no machine id in a layout without genMethod (any machine of the field fits)', () => {
    expect(checked([id({ machine: 1023 })], { idRanges: undefined }).machineOutOfRange.count).toBe(
      0,
    );
  });

  it.each([
    [NOW_MS + 60_000, 0],
    [NOW_MS + 60_001, 1],
  ])('counts a time of %i as in the future: %i (tolerance 60 s)', (unixMs, found) => {
    expect(checked([id({ unixMs })]).future.count).toBe(found);
  });

  it('counts a Vesta UUIDv7 issued before the epoch, never another UUID', () => {
    const report = checked([
      id({ kind: 'uuid', unixMs: EPOCH_MS - 1 }),
      id({ kind: 'uuid', unixMs: EPOCH_MS }),
      id({ kind: 'uuid', unixMs: EPOCH_MS - 1, machine: undefined, genMethod: undefined }),
    ]);
    expect(report.beforeEpoch).toEqual({
      count: 1,
      examples: [
        { line: 1, id: '00000000-0000-0000-0000-0000000003e8', date: '2024-12-31T23:59:59.999Z' },
      ],
    });
  });

  it('counts an order break per issuer: a value below the previous of the same machine id', () => {
    const report = checked([
      id({ value: 10n, machine: 1 }),
      id({ value: 5n, machine: 2 }),
      id({ value: 10n, machine: 1 }),
      id({ value: 9n, machine: 1 }),
      id({ value: 6n, machine: 2 }),
      id({ value: 9n, machine: 1, genMethod: 1 }),
    ]);
    expect(report.orderBreaks).toEqual({
      count: 1,
      examples: [{ line: 4, id: '9', machine: 1, genMethod: 0, previousLine: 3, previous: '10' }],
    });
    expect(
      report.machines.map(({ machine, genMethod, count, orderBreaks }) => [
        machine,
        genMethod,
        count,
        orderBreaks,
      ]),
    ).toEqual([
      [1, 0, 3, 1],
      [2, 0, 2, 0],
      [1, 1, 1, 0],
    ]);
  });

  it('gives each issuer its time span and rate', () => {
    const report = checked([
      id({ unixMs: NOW_MS - 10_000 }),
      ...Array.from({ length: 18 }, () => id()),
      id({ unixMs: NOW_MS - 5000 }),
    ]);
    expect(report.machines).toEqual([
      {
        kind: 'id',
        machine: 5,
        genMethod: 0,
        count: 20,
        first: new Date(NOW_MS - 10_000).toISOString(),
        last: new Date(NOW_MS).toISOString(),
        idsPerSecond: 2,
        orderBreaks: 0,
      },
    ]);
  });

  it('keeps the first examples only, and counts them all', () => {
    const checks = new AuditChecks({ ...OPTIONS, examples: 2 });
    for (let line = 1; line <= 5; line++) checks.unparseable(line, `bad ${line}`, 'why');
    expect(checks.report().unparseable).toEqual({
      count: 5,
      examples: [
        { line: 1, text: 'bad 1', reason: 'why' },
        { line: 2, text: 'bad 2', reason: 'why' },
      ],
    });
  });
});
