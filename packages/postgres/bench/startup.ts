/**
 * Start-up time to the first id: an embedded service with a static machine id against one
 * leasing its id from PostgreSQL (a private throwaway cluster on 127.0.0.1).
 * Run: sh scripts/pnpm.sh exec tsx packages/postgres/bench/startup.ts
 */
import { silentLogger } from '@vesta/core';
import { createEmbeddedIdService } from '@vesta/embedded';
import { startPostgresServer } from '@vesta/testkit';
import { PostgresMachineIdProvider } from '../src/index.js';

const RUNS = Number(process.env['RUNS'] ?? 30);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function timeToFirstId(
  build: () => Promise<{ genId(): Promise<bigint>; close(): Promise<void> }>,
): Promise<number> {
  const start = performance.now();
  const service = await build();
  await service.genId();
  const ms = performance.now() - start;
  await service.close();
  return ms;
}

const server = await startPostgresServer();
try {
  const fixed: number[] = [];
  const leased: number[] = [];
  const reused: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    fixed.push(
      await timeToFirstId(() =>
        createEmbeddedIdService({ machineId: 1, type: 'min-granularity', logger: silentLogger }),
      ),
    );
    const provider = (key: string) =>
      new PostgresMachineIdProvider({
        url: server.url,
        schema: 'bench',
        key,
        logger: silentLogger,
        eraWaitMs: 0, // a private cluster of its own: no instance ever held an id there
      });
    // The same key twice: a new lease, then the restart that gets the same id back.
    const start = () =>
      createEmbeddedIdService({
        machineIdProvider: provider(`new-${i}`),
        type: 'min-granularity',
        logger: silentLogger,
      });
    leased.push(await timeToFirstId(start));
    reused.push(await timeToFirstId(start));
  }
  console.log(`static machine id:            median ${median(fixed).toFixed(2)} ms`);
  console.log(`PostgreSQL, new key:          median ${median(leased).toFixed(2)} ms`);
  console.log(`PostgreSQL, restart same key: median ${median(reused).toFixed(2)} ms`);
} finally {
  await server.dispose();
}
