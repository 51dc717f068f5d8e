/**
 * UUIDs: the cost per UUID of Vesta's fenced UUIDv7 (`genUuidSync` of an embedded service)
 * against the `uuid` package's v7 in the same run (the ratio's base), Node's `randomUUID()` (v4)
 * and, where the Node version has it, `crypto.randomUUIDv7()`; then 1,000,000 of each through
 * one duplicate check. Prints one markdown section (about 30 s); `pnpm bench` runs it.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import { silentLogger } from '@vesta/core';
import { createEmbeddedIdService } from '@vesta/embedded';
import { v7 as uuidV7 } from 'uuid';
import { measureBursts, type BurstTask } from './core/measureBursts.js';

const BURST = 1000;
const ROUNDS = 7;
const MILLION = 1_000_000;

let sink: unknown;

function burst(name: string, next: () => string): BurstTask {
  return {
    name,
    idsPerCall: BURST,
    run: () => {
      let last = '';
      for (let i = 0; i < BURST; i++) last = next();
      sink = last;
    },
  };
}

/** Node 22's v7, absent from Node 20. */
const nodeV7 = (crypto as { randomUUIDv7?: () => string }).randomUUIDv7;

// A sequence of 2^20 per ms is never used up here: the figure is the issuing path alone. The
// default layout (2^20 per second) is the second Vesta row; its sustained rate is that capacity.
const wide = await createEmbeddedIdService({
  machineId: 31,
  type: 'min-granularity',
  epoch: Math.floor(Date.now() / 1000) * 1000 - 86_400_000,
  layout: { seqBits: 20, timeBits: 30 },
  logger: silentLogger,
});
const standard = await createEmbeddedIdService({ machineId: 32, logger: silentLogger });

const peer = burst('uuid v7() (npm uuid)', () => uuidV7());
const tasks: BurstTask[] = [
  burst('Vesta genUuidSync(), 2^20 per ms', () => wide.genUuidSync()),
  // A median call: the one burst a second that uses the second up waits for the next.
  burst('Vesta genUuidSync(), default layout', () => standard.genUuidSync()),
  burst('crypto.randomUUID() (v4)', () => crypto.randomUUID()),
  ...(nodeV7 === undefined ? [] : [burst('crypto.randomUUIDv7()', () => nodeV7())]),
];
const { floorNsPerId, results } = await measureBursts(peer, tasks, {
  rounds: ROUNDS,
  timeMs: 300,
  warmupMs: 100,
});

/** `count` UUIDs of `next` into one Set: the duplicates, and the time it took. */
function million(next: () => string): { duplicates: number; ms: number } {
  const seen = new Set<string>();
  const start = performance.now();
  for (let i = 0; i < MILLION; i++) seen.add(next());
  return { duplicates: MILLION - seen.size, ms: performance.now() - start };
}
const millions = [
  ['Vesta genUuidSync(), 2^20 per ms', million(() => wide.genUuidSync())],
  ['uuid v7() (npm uuid)', million(() => uuidV7())],
  ['crypto.randomUUID() (v4)', million(() => crypto.randomUUID())],
] as const;
await wide.close();
await standard.close();

const load = os
  .loadavg()
  .map((n) => n.toFixed(2))
  .join(' ');
console.log(
  `Bursts of ${BURST} UUIDs per tinybench call, ${ROUNDS} rounds; a figure is the median call of a round, the ratio the median over rounds of (task / uuid v7 of the same round). Node ${process.version}${nodeV7 === undefined ? ' (no crypto.randomUUIDv7)' : ''}, load average at the end ${load} on ${os.availableParallelism()} CPUs.`,
);
console.log('');
console.log(
  '| UUIDs | ns per UUID | UUIDs/s | vs uuid v7 (time per UUID; lower is faster) | round range | vs `randomUUID()` (target for Vesta: <= 1.5x) |',
);
console.log('| --- | ---: | ---: | ---: | --- | --- |');
console.log(
  `| uuid v7() (npm uuid), the base | ${floorNsPerId.toFixed(0)} | ${Math.round(1e9 / floorNsPerId).toLocaleString('en-US')} | 1.00x | - | |`,
);
// Both against uuid v7 of the same rounds: their quotient is Vesta against randomUUID.
const v4 = results.find((r) => r.task.name.startsWith('crypto.randomUUID()'));
for (const r of results) {
  const againstV4 =
    v4 === undefined || !r.task.name.startsWith('Vesta') ? undefined : r.ratio / v4.ratio;
  const cell =
    againstV4 === undefined
      ? ''
      : `${againstV4.toFixed(2)}x: ${againstV4 <= 1.5 ? 'met' : '**not met**'}`;
  console.log(
    `| ${r.task.name} | ${r.nsPerId.toFixed(0)} | ${Math.round(1e9 / r.nsPerId).toLocaleString('en-US')} | ${r.ratio.toFixed(2)}x | ${r.ratioMin.toFixed(2)}-${r.ratioMax.toFixed(2)}x | ${cell} |`,
  );
}
console.log('');
console.log('| 1,000,000 into one Set | duplicates | ms |');
console.log('| --- | ---: | ---: |');
for (const [name, m] of millions) console.log(`| ${name} | ${m.duplicates} | ${m.ms.toFixed(0)} |`);
void sink;
