import { writeFileSync } from 'node:fs';
import { VestaError } from '@vesta/core';
import { sleep } from '@vesta/core/kit';
import { describe, expect, inject, it } from 'vitest';
import { ZooKeeperAdmin } from './ZooKeeperAdmin.js';
import { leaseControl } from './testing/leaseControl.js';
import { startInstance, testRoot } from './testing/zkTestKit.js';

const connect = inject('zookeeperConnect');
const CYCLES = 200;
const CONCURRENCY = 8;
const RANGE = { min: 0, max: 15 };
const TIME_LIMIT_MS = 90_000;

describe('ZooKeeperMachineIdProvider under container churn', () => {
  it(
    'issues no duplicate and never has two live owners of an id over 200 start/stop/kill cycles on 16 ids',
    { timeout: 120_000 },
    async () => {
      const root = testRoot();
      const seen = new Set<bigint>();
      let duplicates = 0;
      let cycles = 0;
      let refused = 0;
      let killed = 0;
      let fenced = 0;
      let doubleOwners = 0;
      const totals = { fresh: 0, reused: 0, reclaimed: 0 };
      const holders = new Map<number, Set<{ readonly valid: boolean }>>();
      const deadline = performance.now() + TIME_LIMIT_MS;

      const worker = async (w: number): Promise<void> => {
        while (cycles < CYCLES && performance.now() < deadline) {
          let instance: Awaited<ReturnType<typeof startInstance>>;
          try {
            // A keyless instance: a new identity every start, like a container with a new address.
            instance = await startInstance({ connect, root }, { range: RANGE });
          } catch (error) {
            if (!VestaError.is(error, 'MACHINE_ID_EXHAUSTED')) throw error;
            refused++;
            await sleep(50);
            continue;
          }
          const cycle = ++cycles;
          const { service, lease, provider } = instance;
          totals.fresh += provider.stats.fresh;
          totals.reused += provider.stats.reused;
          totals.reclaimed += provider.stats.reclaimed;
          const others = holders.get(lease.machineId) ?? new Set();
          for (const other of others) if (other.valid) doubleOwners++;
          others.add(lease);
          holders.set(lease.machineId, others);
          const count = 20 + ((cycle * 7 + w) % 60);
          for (let i = 0; i < count; i++) {
            let id: bigint;
            try {
              id = await service.genId();
            } catch (error) {
              // Fenced: a renewal came late on a loaded machine; issuing resumes on the next one.
              if (!VestaError.is(error, 'MACHINE_ID_LEASE_LOST') || lease.lost) throw error;
              fenced++;
              await sleep(20);
              continue;
            }
            if (seen.has(id)) duplicates++;
            seen.add(id);
          }
          if (cycle % 3 === 0) {
            killed++;
            leaseControl(lease).abandon();
          } else {
            others.delete(lease);
            await service.close();
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));

      const allocations = await new ZooKeeperAdmin({ connect, root }).list();
      writeFileSync(
        process.env['VESTA_CHURN_REPORT'] ?? '/dev/null',
        JSON.stringify({
          cycles,
          ids: seen.size,
          refused,
          killed,
          fenced,
          ...totals,
          allocations: allocations.length,
        }) + '\n',
      );
      expect(cycles).toBeGreaterThanOrEqual(CYCLES);
      expect(duplicates).toBe(0);
      expect(doubleOwners).toBe(0);
      expect(totals.reclaimed).toBeGreaterThan(0);
      expect(allocations.every((a) => a.machineId >= RANGE.min && a.machineId <= RANGE.max)).toBe(
        true,
      );
    },
  );
});
