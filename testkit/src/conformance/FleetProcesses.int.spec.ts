import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { FleetProcesses } from './FleetProcesses.js';
import { fleetClockMs } from './startFleetMembers.js';

const MODULE = new URL('./__fixtures__/staticFleetHarness.ts', import.meta.url).href;

/** Whether process `pid` still runs. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('FleetProcesses', () => {
  let fleet: FleetProcesses | undefined;
  afterEach(async () => {
    await fleet?.close();
    fleet = undefined;
  });

  it('runs each start in one of its children, reports every outcome (taken or refused) in start order with times since the go, and ends the children on close', async () => {
    const scope = `${process.env['VESTA_HOST_LOCK_SCOPE'] ?? 'default'}/fleet-processes-${randomUUID()}`;
    fleet = await FleetProcesses.start(3, 12, {
      module: MODULE,
      address: 'none',
      namespace: 'static',
      scope,
    });
    expect(fleet.pids).toHaveLength(3);
    expect(new Set(fleet.pids).size).toBe(3);
    const before = fleetClockMs();
    const outcomes = await fleet.go(30_000);
    const elapsed = fleetClockMs() - before;

    expect(outcomes.map((o) => [o.index, o.machineId, o.code])).toEqual([
      ...Array.from({ length: 10 }, (_, i) => [i, 100 * i, undefined]),
      [10, undefined, 'MACHINE_ID_OUT_OF_RANGE'],
      [11, undefined, 'MACHINE_ID_OUT_OF_RANGE'],
    ]);
    expect(outcomes[10]?.error).toContain('got 1000');
    for (const o of outcomes) {
      expect(o.atMs).toBeGreaterThanOrEqual(0);
      expect(o.atMs).toBeLessThanOrEqual(elapsed);
    }
    // The children still hold their services until told to close.
    for (const pid of fleet.pids) expect(running(pid)).toBe(true);
    const pids = fleet.pids;
    await fleet.close();
    fleet = undefined;
    for (const pid of pids) expect(running(pid)).toBe(false);
  });
});
