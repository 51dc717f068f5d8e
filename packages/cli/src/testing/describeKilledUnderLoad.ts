import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoRepeatedIds } from './expectNoRepeatedIds.js';
import { killUnderLoad, type LoadConnection } from './killUnderLoad.js';

const CYCLES = 20;

/**
 * The crash test of one server command: `vesta <command>` SIGKILLed under load and restarted on
 * one state dir, {@link CYCLES} times; no id may repeat or be issued below one already answered.
 */
export function describeKilledUnderLoad(
  command: 'rest' | 'server',
  machineId: number,
  connect: (port: number) => Promise<LoadConnection>,
): void {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), `vesta-crash-${command}-`));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe(`vesta ${command} killed with SIGKILL under load`, () => {
    it(`issues no id twice, nor below an id already answered, over ${CYCLES} kill-restart cycles on one state dir`, async () => {
      const result = await killUnderLoad({
        command,
        args: [
          '--machine-id',
          String(machineId),
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
        connect,
      });

      expect(result.exits).toEqual(Array<string>(CYCLES).fill('SIGKILL'));
      expect(result.perCycle.every((n) => n >= 4000)).toBe(true);
      expect(result.inFlightAtKill.every((n) => n > 0)).toBe(true);
      const audit = expectNoRepeatedIds(result.batches);
      expect(audit.total).toBeGreaterThanOrEqual(CYCLES * 4000);
    }, 300_000);
  });
}
