import { describe, expect, it } from 'vitest';
import type { LeaseAllocation } from './LeaseAdmin.js';
import { listAllocations } from './LeaseAdmin.js';

const row = (machineId: number): LeaseAllocation => ({
  machineId,
  owner: `k${machineId}`,
  alive: false,
  markMs: 0,
  ageMs: 0,
  host: undefined,
  pid: undefined,
});

describe('listAllocations', () => {
  it('reads every id named, leaves out those gone and what is not an id, in id order', async () => {
    const rows = await listAllocations(['10', '2', 'era', '1.5', 7, '3'], async (machineId) =>
      machineId === 3 ? undefined : row(machineId),
    );
    expect(rows.map((r) => r.machineId)).toEqual([2, 7, 10]);
  });
});
