import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditIds } from '../testing/auditIds.js';
import { killUnderLoad } from '../testing/killUnderLoad.js';
import { restIssue } from '../testing/restIssue.js';

const CYCLES = 20;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vesta-crash-rest-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('vesta rest killed with SIGKILL under load', () => {
  it(`issues no id twice, nor below an id already answered, over ${CYCLES} kill-restart cycles on one state dir`, async () => {
    const result = await killUnderLoad({
      command: 'rest',
      args: [
        '--machine-id',
        '1009',
        '--state-dir',
        join(dir, 'state'),
        // Milliseconds: a batch of 1,000 ids spans a used-up unit, the busiest path.
        '--type',
        'min-granularity',
        // A mark written 250 ms ahead: each restart after SIGKILL waits at most that long.
        '--mark-window-ms',
        '250',
      ],
      cycles: CYCLES,
      idsPerCycle: 4000,
      clients: 4,
      connect: (port) => Promise.resolve(restIssue(`http://127.0.0.1:${port}`, 1000)),
    });

    expect(result.exits).toEqual(Array<string>(CYCLES).fill('SIGKILL'));
    expect(result.perCycle.every((n) => n >= 4000)).toBe(true);
    expect(result.inFlightAtKill.every((n) => n > 0)).toBe(true);
    const audit = auditIds(result.batches);
    expect(audit.total).toBeGreaterThanOrEqual(CYCLES * 4000);
    expect({ count: audit.duplicateCount, first: audit.duplicates }).toEqual({
      count: 0,
      first: [],
    });
    expect({ count: audit.backwardCount, first: audit.backwards }).toEqual({ count: 0, first: [] });
  }, 300_000);
});
