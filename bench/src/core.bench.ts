/**
 * Core and embedded: the raw cost per id against the physical floor, the sustained rate
 * against the layout's capacity, the peers' speed next to their duplicate counts, and a burst of ten units' capacity with and without time borrowing (`maxLeadMs`).
 * Prints one markdown section (about 60 s); `pnpm bench` runs it. `CORE_BENCH_RAW_ONLY=1`: the
 * raw costs only; `CORE_BENCH_LEAD_ONLY=1`: the burst section only.
 */
import os from 'node:os';
import {
  formatId,
  IdScrambler,
  silentLogger,
  type PopulatorKind,
  type SyncIdService,
} from '@vesta/core';
import { createEmbeddedIdService } from '@vesta/embedded';
import { measureBursts, type BurstTask } from './core/measureBursts.js';
import { PEERS } from './core/peers.js';
import { runMillion, type MillionResult } from './core/runMillion.js';
import { measureSustained, type SustainedCall } from './core/measureSustained.js';
import { measureLeadBurst, type LeadBurstCall, type LeadCounts } from './core/measureLeadBurst.js';

const BURST = 1000;
const BATCHES_PER_CALL = 2;
const ROUNDS = 7;
const MILLION = 1_000_000;
const SUSTAINED_MS = 5000;
/** Bursts of ten units' capacity, with and without time borrowing. */
const LEAD_BURST_UNITS = 10;
const LEAD_MS = 20;
const LEAD_ROUNDS = Number(process.env.CORE_BENCH_LEAD_ROUNDS ?? 15);

let sink: unknown;

/** The floor: read the clock and build a bigint from two 32-bit halves, nothing else. */
function floorBurst(): void {
  let last = 0n;
  for (let i = 0; i < BURST; i++) {
    const ms = Date.now();
    last = (BigInt((ms / 4294967296) >>> 0) << 32n) | BigInt(ms >>> 0);
  }
  sink = last;
}

/**
 * Wide layouts for the raw cost: a sequence of 2^30 per second (or 2^20 per ms) is never used
 * up, so the figure is the issuing path alone. The epoch is a recent whole second so that the
 * narrower time field holds today; the code path is the one the standard layouts take.
 */
const WIDE_EPOCH_MS = Math.floor(Date.now() / 1000) * 1000 - 86_400_000;
const WIDE_MAX_PEAK = { seqBits: 30, timeBits: 20 };
const WIDE_MIN_GRANULARITY = { seqBits: 20, timeBits: 30 };

/**
 * Twitter's field order (sequence lowest, then machine, then milliseconds, a reserved sign bit)
 * made as wide: the issuing path of a non-Vesta layout, next to Vesta's on the same run.
 */
const WIDE_TWITTER_ORDER = {
  fields: [
    { name: 'seq', bits: 22 },
    { name: 'machine', bits: 10 },
    { name: 'time', bits: 31 },
    { name: 'reserved', bits: 1 },
  ],
  unitMs: 1,
  type: 1,
} as const;

/**
 * Each service takes a machine id of its own: services that live side by side would be refused
 * by the host lock, and a later one on the same id with another layout by the time marks.
 */
let nextMachineId = 7;

function wideService(populator: PopulatorKind, type: 'max-peak' | 'min-granularity' = 'max-peak') {
  return createEmbeddedIdService({
    machineId: nextMachineId++,
    type,
    populator,
    epoch: WIDE_EPOCH_MS,
    layout: type === 'max-peak' ? WIDE_MAX_PEAK : WIDE_MIN_GRANULARITY,
    logger: silentLogger,
  });
}

function twitterService(layout: 'twitter' | typeof WIDE_TWITTER_ORDER) {
  return createEmbeddedIdService({
    machineId: nextMachineId++,
    // Twitter-ordered ids can meet the Vesta ids of the other rows' machine ids, so the marks
    // they leave would (rightly) refuse those rows' services on this host (STATE_MISMATCH): a
    // scope of their own, as if on another host.
    hostLockScope: `bench-twitter-order-${process.pid}`,
    populator: 'sync',
    ...(layout === 'twitter' ? {} : { epoch: WIDE_EPOCH_MS }),
    layout,
    logger: silentLogger,
  });
}

interface CoreTask extends BurstTask {
  /** The most this path may cost, in floors. */
  readonly target?: number;
}

function syncTask(name: string, service: SyncIdService, target?: number): CoreTask {
  const run = (): void => {
    let last = 0n;
    for (let i = 0; i < BURST; i++) last = service.genIdSync();
    sink = last;
  };
  return { name, idsPerCall: BURST, run, ...(target === undefined ? {} : { target }) };
}

/** `genIdSync()` and the id written as text: the cost of a form is this row less `genIdSync()`'s. */
function formattedTask(
  name: string,
  service: SyncIdService,
  write: (id: bigint) => string,
  target?: number,
): CoreTask {
  const run = (): void => {
    let last = '';
    for (let i = 0; i < BURST; i++) last = write(service.genIdSync());
    sink = last;
  };
  return { name, idsPerCall: BURST, run, ...(target === undefined ? {} : { target }) };
}

const benchScrambler = new IdScrambler('a benchmark scramble key');

function asyncTask(name: string, service: SyncIdService): CoreTask {
  const run = async (): Promise<void> => {
    let last = 0n;
    for (let i = 0; i < BURST; i++) last = await service.genId();
    sink = last;
  };
  return { name, idsPerCall: BURST, run };
}

function batchTask(name: string, service: SyncIdService, target: number): CoreTask {
  const run = async (): Promise<void> => {
    let last: bigint[] = [];
    for (let i = 0; i < BATCHES_PER_CALL; i++) last = await service.genIds(1000);
    sink = last;
  };
  return { name, idsPerCall: BATCHES_PER_CALL * 1000, run, target };
}

const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const verdict = (ok: boolean): string => (ok ? 'met' : '**not met**');

async function rawSection(): Promise<number> {
  const sync = await wideService('sync');
  const lock = await wideService('lock');
  const atomic = await wideService('atomic');
  const syncMs = await wideService('sync', 'min-granularity');
  const twitterOrder = await twitterService(WIDE_TWITTER_ORDER);
  const twitter = await twitterService('twitter');
  const tasks: CoreTask[] = [
    syncTask('`genIdSync()` sync', sync, 2),
    syncTask('`genIdSync()` atomic', atomic, 2),
    syncTask('`genIdSync()` sync, ms layout', syncMs, 2),
    formattedTask('`genIdSync()` sync + `String(id)`', sync, String),
    formattedTask(
      "`genIdSync()` sync + `formatId(id, 'base32')`",
      sync,
      (id) => formatId(id, 'base32'),
      2,
    ),
    formattedTask(
      "`genIdSync()` sync + scrambled `'base32'`",
      sync,
      (id) => benchScrambler.format(id, 'base32'),
      3,
    ),
    syncTask("`genIdSync()` sync, Twitter's field order (ms, wide)", twitterOrder, 2),
    // 4,096 ids per ms: a burst may use a millisecond up and wait for the next.
    syncTask('`genIdSync()` sync, `twitter` preset (4,096 per ms)', twitter),
    asyncTask('`genId()` sync', sync),
    asyncTask('`genId()` lock', lock),
    asyncTask('`genId()` atomic', atomic),
    batchTask('`genIds(1000)` sync, per id', sync, 0.5),
    batchTask('`genIds(1000)` lock, per id', lock, 0.5),
    batchTask('`genIds(1000)` atomic, per id', atomic, 0.5),
  ];
  const floor: BurstTask = {
    name: 'floor: `Date.now()` + bigint from two 32-bit halves',
    idsPerCall: BURST,
    run: floorBurst,
  };
  const { floorNsPerId, results } = await measureBursts(floor, tasks, {
    rounds: ROUNDS,
    timeMs: 150,
    warmupMs: 50,
  });
  for (const service of [sync, lock, atomic, syncMs, twitterOrder, twitter]) await service.close();

  console.log('### Raw cost per id, sequence never used up\n');
  console.log(
    `Bursts of ${fmt(BURST)} ids per tinybench call on wide layouts (max-peak with a ${WIDE_MAX_PEAK.seqBits}-bit ` +
      `sequence; ms layout: ${WIDE_MIN_GRANULARITY.seqBits}-bit; Twitter's order: 22-bit), ${ROUNDS} rounds. A figure is the median call ` +
      'of a round; the ratio is the median over rounds of (task / floor of the same round).\n',
  );
  console.log('| path | ns per id | × floor | range over rounds | target | |');
  console.log('|---|---:|---:|---:|---:|---|');
  console.log(`| ${floor.name} | ${fmt(floorNsPerId, 1)} | 1.00 | | | |`);
  results.forEach((r, i) => {
    const target = tasks[i]?.target;
    const targetCell = target === undefined ? '' : `≤ ${target}×`;
    const met = target === undefined ? '' : verdict(r.ratio <= target);
    console.log(
      `| ${r.task.name} | ${fmt(r.nsPerId, 1)} | ${fmt(r.ratio, 2)} | ${fmt(r.ratioMin, 2)}–${fmt(r.ratioMax, 2)} | ` +
        `${targetCell} | ${met} |`,
    );
  });
  console.log();
  return floorNsPerId;
}

async function sustainedSection(): Promise<void> {
  console.log(`### Sustained rate over ${SUSTAINED_MS / 1000} s, standard layouts\n`);
  console.log(
    'The window starts at a unit boundary and covers whole units; only ids whose time lies inside it count. ' +
      'Populator sync; capacity = sequence size per unit.\n',
  );
  console.log(
    '| layout | call | ids in window | ids/s | capacity/s | fraction | target ≥ 95% | order breaks |',
  );
  console.log('|---|---|---:|---:|---:|---:|---|---:|');
  const runs: { type: 'min-granularity' | 'max-peak'; call: SustainedCall }[] = [
    { type: 'min-granularity', call: 'genIdSync' },
    { type: 'min-granularity', call: 'genIds(1000)' },
    { type: 'max-peak', call: 'genIdSync' },
    { type: 'max-peak', call: 'genIds(1000)' },
  ];
  for (const run of runs) {
    const service = await createEmbeddedIdService({
      machineId: nextMachineId++,
      type: run.type,
      logger: silentLogger,
    });
    const unitMs = service.info().unitMs;
    const r = await measureSustained(service, run.call, SUSTAINED_MS / unitMs);
    await service.close();
    const seconds = (r.units * r.unitMs) / 1000;
    const label = run.type === 'max-peak' ? 'type 0 max-peak' : 'type 1 min-granularity';
    console.log(
      `| ${label} | \`${run.call}\` | ${fmt(r.ids)} | ${fmt(r.ids / seconds)} | ${fmt((r.perUnit * 1000) / r.unitMs)} | ` +
        `${fmt(r.fraction * 100, 1)}% | ${verdict(r.fraction >= 0.95)} | ${r.orderBreaks} |`,
    );
  }
  console.log();
}

async function peersSection(floorNs: number): Promise<void> {
  const rows: { name: string; capacity: string; result: MillionResult }[] = [];
  for (const type of ['min-granularity', 'max-peak'] as const) {
    const service = await createEmbeddedIdService({
      machineId: nextMachineId++,
      type,
      logger: silentLogger,
    });
    const info = service.info();
    // A million max-peak ids fit one second's 1,048,576: start the run at a second boundary.
    if (type === 'max-peak') {
      const second = Math.floor(Date.now() / 1000);
      while (Math.floor(Date.now() / 1000) === second);
    }
    rows.push({
      name: `Vesta \`genIdSync()\`, ${type === 'max-peak' ? 'type 0' : 'type 1'}`,
      capacity: `${fmt((2 ** info.layout.seqBits * 1000) / info.unitMs)} per s`,
      result: runMillion(() => service.genIdSync(), MILLION),
    });
    await service.close();
  }
  for (const peer of PEERS) {
    rows.push({
      name: peer.name,
      capacity: peer.capacity,
      result: runMillion(peer.create(), MILLION),
    });
  }

  console.log(`### ${fmt(MILLION)} ids each through the same duplicate check\n`);
  console.log(
    'Ids kept as bigints in a BigUint64Array, sorted, neighbours compared; order breaks counted in issue order. ' +
      'The floor is the raw section’s.\n',
  );
  console.log(
    '| generator | its capacity | ms for 1M | ids/s | ns per id × floor | duplicates | order breaks |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|');
  for (const { name, capacity, result } of rows) {
    const nsPerId = (result.ms * 1e6) / result.ids;
    console.log(
      `| ${name} | ${capacity} | ${fmt(result.ms)} | ${fmt((result.ids * 1000) / result.ms)} | ` +
        `${fmt(nsPerId / floorNs, 2)} | ${fmt(result.duplicates)} | ${fmt(result.orderBreaks)} |`,
    );
  }
  console.log();
}

async function leadSection(): Promise<void> {
  console.log(
    `### A burst of ${LEAD_BURST_UNITS}× a unit's capacity, with and without \`maxLeadMs\`\n`,
  );
  console.log(
    `Standard min-granularity layout (1,024 ids per ms): bursts of ${fmt(LEAD_BURST_UNITS * 1024)} ids, ` +
      `${LEAD_ROUNDS} rounds, each started once \`health().leadMs\` is back at 0. Waits are the ` +
      'times callers waited for the next unit (`onSequenceExhausted`), borrowed the units opened ' +
      'ahead of the clock (`onTimeBorrowed`), both per burst.\n',
  );
  console.log(
    '| populator | call | maxLeadMs | median ms per burst | range | waits | borrowed | max lead ms | lead back at 0 | order breaks |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---|---:|');
  const runs: { populator: PopulatorKind; call: LeadBurstCall }[] = [
    { populator: 'sync', call: 'genIdSync' },
    { populator: 'sync', call: 'genIds' },
    { populator: 'atomic', call: 'genIdSync' },
    { populator: 'lock', call: 'genId, all at once' },
  ];
  for (const run of runs) {
    for (const maxLeadMs of [0, LEAD_MS]) {
      const counts: LeadCounts = { waits: 0, borrowed: 0 };
      const service = await createEmbeddedIdService({
        machineId: nextMachineId++,
        type: 'min-granularity',
        populator: run.populator,
        maxLeadMs,
        logger: silentLogger,
        observer: {
          onSequenceExhausted: () => counts.waits++,
          onTimeBorrowed: () => counts.borrowed++,
        },
      });
      const r = await measureLeadBurst(
        service as SyncIdService,
        counts,
        run.call,
        LEAD_BURST_UNITS * 1024,
        LEAD_ROUNDS,
      );
      await service.close();
      console.log(
        `| ${run.populator} | \`${run.call}\` | ${maxLeadMs} | ${fmt(r.medianMs, 2)} | ` +
          `${fmt(r.minMs, 2)}–${fmt(r.maxMs, 2)} | ${fmt(r.waitsPerBurst, 1)} | ${fmt(r.borrowedPerBurst, 1)} | ` +
          `${r.maxLeadMs} | ${r.leadBackToZero ? 'yes' : '**no**'} | ${r.orderBreaks} |`,
      );
    }
  }
  console.log();
}

const started = performance.now();
const loadBefore = os.loadavg()[0] ?? 0;
const leadOnly = process.env.CORE_BENCH_LEAD_ONLY === '1';
const floorNs = leadOnly ? Number.NaN : await rawSection();
if (process.env.CORE_BENCH_RAW_ONLY !== '1') {
  if (!leadOnly) {
    await sustainedSection();
    await peersSection(floorNs);
  }
  await leadSection();
}
console.log(
  `Node ${process.version}, ${os.cpus().length} cores, load average ${fmt(loadBefore, 2)} → ` +
    `${fmt(os.loadavg()[0] ?? 0, 2)}, ${fmt((performance.now() - started) / 1000)} s. ` +
    (leadOnly ? '' : `Floor: ${fmt(floorNs, 1)} ns per id.`),
);
void sink;
