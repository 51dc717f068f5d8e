/**
 * Start-up time to the first id: an embedded service with a static machine id against one
 * leasing its id from etcd (a private single-member etcd on 127.0.0.1).
 * Run: sh scripts/pnpm.sh exec tsx packages/etcd/bench/startup.ts
 */
import { silentLogger } from '@vesta/core';
import { createEmbeddedIdService } from '@vesta/embedded';
import { startEtcdServer } from '@vesta/testkit';
import { EtcdMachineIdProvider } from '../src/index.js';

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

const server = await startEtcdServer();
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
      new EtcdMachineIdProvider({
        endpoints: server.address,
        root: '/bench',
        key,
        logger: silentLogger,
        eraWaitMs: 0, // a private etcd of its own: no instance ever held an id there
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
  console.log(`etcd, new key:                median ${median(leased).toFixed(2)} ms`);
  console.log(`etcd, restart same key:       median ${median(reused).toFixed(2)} ms`);
} finally {
  await server.dispose();
}
