/**
 * Start-up time to the first id, per machine-id source: an embedded service on a static machine
 * id, and on ids leased from each coordinator (a private server on 127.0.0.1 each): a new key,
 * then the restart of the same key (its id back). Prints one markdown section; `pnpm bench` runs
 * it. Run alone: sh scripts/pnpm.sh exec tsx bench/src/machineIdStartup.bench.ts [runs]
 */
import { silentLogger, type MachineIdProvider } from '@vesta/core';
import { createEmbeddedIdService } from '@vesta/embedded';
import { STARTUP_PROVIDERS } from './machine-ids/STARTUP_PROVIDERS.js';

const RUNS = Number(process.argv[2] ?? 30);

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

let instances = 0;

/** Milliseconds from creating the service to its first id (then it is closed). */
async function timeToFirstId(provider: MachineIdProvider): Promise<number> {
  const start = performance.now();
  const service = await createEmbeddedIdService({
    machineIdProvider: provider,
    type: 'min-granularity',
    logger: silentLogger,
    hostLockScope: `bench-startup-${process.pid}-${++instances}`,
  });
  await service.genId();
  const ms = performance.now() - start;
  await service.close();
  return ms;
}

console.log(`Median (p90) ms from createEmbeddedIdService to the first id, ${RUNS} runs each:\n`);
console.log('| machine ids from | new key | restart, same key |');
console.log('| --- | --- | --- |');
for (const source of STARTUP_PROVIDERS) {
  const started = await source.start();
  try {
    const fresh: number[] = [];
    const again: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      fresh.push(await timeToFirstId(started.provider(`bench-${i}`)));
      again.push(await timeToFirstId(started.provider(`bench-${i}`)));
    }
    const cell = (v: number[]) =>
      `${percentile(v, 0.5).toFixed(1)} (${percentile(v, 0.9).toFixed(1)})`;
    console.log(`| ${source.name} | ${cell(fresh)} | ${cell(again)} |`);
  } finally {
    await started.dispose();
  }
}
