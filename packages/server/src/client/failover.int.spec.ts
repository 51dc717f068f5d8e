import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@vesta/core';
import { describe, expect, it } from 'vitest';
import { spawnServer, type ServerProcess } from '../testing/spawnServer.js';
import { createIdClient } from './IdClient.js';

const CALLERS = 8;

describe('IdClient failover', () => {
  it('gives 8 continuous callers no error and no duplicate while one of two servers is SIGKILLed and restarted', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'vesta-failover-'));
    const servers: ServerProcess[] = [];
    const kill = async (p: ServerProcess): Promise<void> => {
      p.child.kill('SIGKILL');
      await p.exited;
    };
    try {
      servers.push(await spawnServer({ port: 0, machineId: 1001, stateDir }));
      servers.push(await spawnServer({ port: 0, machineId: 1002, stateDir }));
      const [a, b] = servers as [ServerProcess, ServerProcess];
      const ids = await createIdClient({
        servers: [`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`],
        logger: silentLogger,
        requestTimeoutMs: 500,
        probeIntervalMs: 20,
        maxProbeIntervalMs: 200,
      });
      const seen = new Set<bigint>();
      const errors: unknown[] = [];
      let duplicates = 0;
      let stop = false;
      const perMachine = new Map<number, number>();
      const caller = async (n: number): Promise<void> => {
        // Bounded: stops when told, or after 200k calls at most.
        for (let i = 0; !stop && i < 200_000; i++) {
          try {
            const got = i % 4 === n % 4 ? await ids.genIds(16) : [await ids.genId()];
            for (const id of got) {
              if (seen.has(id)) duplicates++;
              seen.add(id);
              const m = ids.expId(id).machine;
              perMachine.set(m, (perMachine.get(m) ?? 0) + 1);
            }
          } catch (error) {
            errors.push(error);
          }
        }
      };
      const callers = Array.from({ length: CALLERS }, (_, n) => caller(n));
      const waitFor = async (check: () => boolean): Promise<void> => {
        for (let i = 0; i < 600 && !check(); i++)
          await new Promise((resolve) => setTimeout(resolve, 10));
      };
      await waitFor(() => seen.size > 2000);
      await kill(a);
      const afterKill = seen.size;
      await waitFor(() => seen.size > afterKill + 2000);
      const down = ids.info().servers[0]?.state;
      // Same port, same state dir: the high-water mark keeps the restarted server from reissuing.
      servers[0] = await spawnServer({ port: a.port, machineId: 1001, stateDir });
      const beforeBack = perMachine.get(1001) ?? 0;
      await waitFor(() => (perMachine.get(1001) ?? 0) > beforeBack + 500);
      stop = true;
      await Promise.all(callers);
      await ids.close();

      expect(down).not.toBe('up');
      expect(errors).toEqual([]);
      expect(duplicates).toBe(0);
      expect(perMachine.get(1001) ?? 0).toBeGreaterThan(beforeBack + 500);
      expect(perMachine.get(1002) ?? 0).toBeGreaterThan(2000);
    } finally {
      await Promise.all(servers.map(kill));
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
