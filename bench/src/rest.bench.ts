/**
 * REST benchmark: `/genid` requests/s against a bare node:http server returning a counter as
 * JSON, twice: through the standalone server (`startRestServer`, whose pre-router sends the
 * API's exact routes straight to their handlers) and through `createRestApp` alone (every
 * request through express, what an embedder gets); and `/genids?count=1000` ids/s against the
 * layout's capacity; `/genid` from the standalone server in N worker processes (`startRestCluster`,
 * N from VESTA_BENCH_WORKERS, default the cores available) against N times one process; and
 * `/genid` through a user's express app with the fast path (`createRestMiddleware`) mounted
 * inside express and ahead of it, the first two also against a plain express 5 app answering a
 * constant body (express's own floor). Same run, same settings for every row: autocannon, 50 connections,
 * keep-alive, 1 s warm-up, then 10 s (VESTA_BENCH_SECONDS overrides). Each server runs in its
 * own process; autocannon in this one. On a shared machine, VESTA_BENCH_ROUNDS=n (default 1)
 * measures the three `/genid` rows n times in turn and reports medians, each ratio taken within
 * its round; on Linux the server's CPU time per request is read from /proc, a figure that other
 * load disturbs far less than requests/s.
 * Run: pnpm bench (all), or: sh scripts/pnpm.sh exec tsx bench/src/rest.bench.ts
 */
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { MAX_PEAK_LAYOUT } from '@vesta/core/kit';
import { cpuMs, startBenchProcess, stopBenchProcess, type BenchProcess } from './benchProcess.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env.VESTA_BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.VESTA_BENCH_ROUNDS ?? 1);
const CONNECTIONS = 50;
const RATIO_TARGET = 0.35;
const RPS_TARGET = 10_000;
const CAPACITY_TARGET = 0.9;
const WORKERS = Number(process.env.VESTA_BENCH_WORKERS ?? availableParallelism());
const CLUSTER_TARGET = 0.8;
/** Vesta inside express against a plain express app answering a constant body (issue 37). */
const EXPRESS_FLOOR_TARGET = 0.8;

interface Row {
  rps: number;
  non2xx: number;
  errors: number;
  p99: number;
  /** Server CPU time (user + system, its workers included) per request in microseconds; NaN off Linux. */
  cpuUs: number;
}

function start(file: string, env: Record<string, string>) {
  return startBenchProcess(join(HERE, 'rest', file), env);
}

async function load(port: number, path: string, seconds = SECONDS) {
  return autocannon({
    url: `http://127.0.0.1:${port}${path}`,
    connections: CONNECTIONS,
    duration: seconds,
    pipelining: 1,
  });
}

/** The CPU time of a server's processes (its cluster workers included), in ms. */
function serverCpuMs(server: BenchProcess & { pids: readonly number[] }): number {
  return [server.child.pid, ...server.pids].reduce<number>((sum, pid) => sum + cpuMs(pid), 0);
}

async function measure(file: string, path: string, env: Record<string, string> = {}): Promise<Row> {
  const server = await start(file, env);
  try {
    await load(server.port, path, 1); // warm-up: JIT, connections
    const before = serverCpuMs(server);
    const result = await load(server.port, path);
    const cpu = serverCpuMs(server) - before;
    return {
      rps: result.requests.average,
      non2xx: result.non2xx,
      errors: result.errors,
      p99: result.latency.p99,
      cpuUs: (cpu * 1000) / result.requests.total,
    };
  } finally {
    await stopBenchProcess(server);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? Number.NaN) + (sorted[mid] ?? Number.NaN)) / 2;
}

/** The median row of several rounds: medians of rps, p99 and CPU, sums of failures. */
function combine(rows: Row[]): Row {
  return {
    rps: median(rows.map((r) => r.rps)),
    p99: median(rows.map((r) => r.p99)),
    cpuUs: median(rows.map((r) => r.cpuUs)),
    non2xx: rows.reduce((n, r) => n + r.non2xx, 0),
    errors: rows.reduce((n, r) => n + r.errors, 0),
  };
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const met = (ok: boolean): string => (ok ? 'met' : '**not met**');
const us = (row: Row): string => (Number.isNaN(row.cpuUs) ? '' : `${row.cpuUs.toFixed(0)} us`);
const loads = (l: number[]): string => l.map((x) => x.toFixed(2)).join(' ');

const loadBefore = loadavg();
const rounds: {
  bare: Row;
  genid: Row;
  express: Row;
  cluster: Row;
  fastInside: Row;
  fastAhead: Row;
  plainExpress: Row;
}[] = [];
for (let round = 0; round < ROUNDS; round++) {
  rounds.push({
    bare: await measure('bareServer.ts', '/'),
    genid: await measure('vestaServer.ts', '/genid'),
    express: await measure('expressAppServer.ts', '/genid'),
    cluster: await measure('clusterServer.ts', '/genid', {
      VESTA_BENCH_WORKERS: String(WORKERS),
    }),
    fastInside: await measure('expressMiddlewareServer.ts', '/genid', {
      VESTA_BENCH_FAST_PATH: 'inside',
    }),
    fastAhead: await measure('expressMiddlewareServer.ts', '/genid', {
      VESTA_BENCH_FAST_PATH: 'ahead',
    }),
    plainExpress: await measure('plainExpressServer.ts', '/genid'),
  });
}
const genids = await measure('vestaServer.ts', '/genids?count=1000');
const loadAfter = loadavg();

const bare = combine(rounds.map((r) => r.bare));
const genid = combine(rounds.map((r) => r.genid));
const genidExpress = combine(rounds.map((r) => r.express));
const ratio = median(rounds.map((r) => r.genid.rps / r.bare.rps));
const expressRatio = median(rounds.map((r) => r.express.rps / r.bare.rps));
const cluster = combine(rounds.map((r) => r.cluster));
const clusterRatio = median(rounds.map((r) => r.cluster.rps / (WORKERS * r.genid.rps)));
const fastInside = combine(rounds.map((r) => r.fastInside));
const fastInsideRatio = median(rounds.map((r) => r.fastInside.rps / r.bare.rps));
const fastAhead = combine(rounds.map((r) => r.fastAhead));
const fastAheadRatio = median(rounds.map((r) => r.fastAhead.rps / r.bare.rps));
const plainExpress = combine(rounds.map((r) => r.plainExpress));
// Against express's own floor, within each round: requests/s, and server CPU per request (the
// figure other load on the machine disturbs least).
const ofExpress = (row: (r: (typeof rounds)[number]) => Row) => ({
  rps: median(rounds.map((r) => row(r).rps / r.plainExpress.rps)),
  cpu: median(rounds.map((r) => r.plainExpress.cpuUs / row(r).cpuUs)),
});
const appOfExpress = ofExpress((r) => r.express);
const insideOfExpress = ofExpress((r) => r.fastInside);
const idsPerSecond = genids.rps * 1000;
const capacity = MAX_PEAK_LAYOUT.seq.max + 1; // ids per second per machine, max-peak
const fraction = idsPerSecond / capacity;

console.log(
  `autocannon, ${CONNECTIONS} connections, keep-alive, ${SECONDS} s per row after a 1 s warm-up` +
    `${ROUNDS > 1 ? `, ${ROUNDS} rounds of the /genid rows (medians; each ratio within its round)` : ''}` +
    `; Node ${process.version}, ${process.platform}/${process.arch}, ${availableParallelism()} cores available, ${WORKERS} workers; load average ${loads(loadBefore)} before, ${loads(loadAfter)} after.\n`,
);
console.log(
  '| server / route | requests/s | p99 latency | server CPU / request | non-2xx / errors | figure | target | result |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---|');
console.log(
  `| bare node:http, counter as JSON (peer) | ${fmt(bare.rps)} | ${bare.p99} ms | ${us(bare)} | ${bare.non2xx} / ${bare.errors} | 1.00x | | |`,
);
console.log(
  `| Vesta REST \`/genid\`, standalone server (pre-router) | ${fmt(genid.rps)} | ${genid.p99} ms | ${us(genid)} | ${genid.non2xx} / ${genid.errors} | ${ratio.toFixed(2)}x of bare | >= ${RATIO_TARGET}x | ${met(ratio >= RATIO_TARGET)} |`,
);
console.log(
  `| Vesta REST \`/genid\`, standalone server, absolute | ${fmt(genid.rps)} | | | | ${fmt(genid.rps)} req/s | >= ${fmt(RPS_TARGET)} req/s | ${met(genid.rps >= RPS_TARGET)} |`,
);
console.log(
  `| Vesta REST \`/genid\`, \`createRestApp\` (all through express) | ${fmt(genidExpress.rps)} | ${genidExpress.p99} ms | ${us(genidExpress)} | ${genidExpress.non2xx} / ${genidExpress.errors} | ${expressRatio.toFixed(2)}x of bare | >= ${RATIO_TARGET}x | ${met(expressRatio >= RATIO_TARGET)} |`,
);
console.log(
  `| Vesta REST \`/genid\`, \`createRestApp\`, absolute | ${fmt(genidExpress.rps)} | | | | ${fmt(genidExpress.rps)} req/s | >= ${fmt(RPS_TARGET)} req/s | ${met(genidExpress.rps >= RPS_TARGET)} |`,
);
console.log(
  `| Vesta REST \`/genids?count=1000\` | ${fmt(genids.rps)} | ${genids.p99} ms | ${us(genids)} | ${genids.non2xx} / ${genids.errors} | ${fmt(idsPerSecond)} ids/s = ${(fraction * 100).toFixed(1)}% of ${fmt(capacity)}/s | >= ${CAPACITY_TARGET * 100}% | ${met(fraction >= CAPACITY_TARGET)} |`,
);
console.log(
  `| Vesta REST \`/genid\`, standalone server, ${WORKERS} workers (\`startRestCluster\`) | ${fmt(cluster.rps)} | ${cluster.p99} ms | ${us(cluster)} | ${cluster.non2xx} / ${cluster.errors} | ${clusterRatio.toFixed(2)}x of ${WORKERS} x one worker (${fmt(WORKERS * genid.rps)}) | >= ${CLUSTER_TARGET}x | ${met(clusterRatio >= CLUSTER_TARGET)} |`,
);
console.log(
  `| Vesta REST \`/genid\`, \`createRestMiddleware\` inside express (first middleware) | ${fmt(fastInside.rps)} | ${fastInside.p99} ms | ${us(fastInside)} | ${fastInside.non2xx} / ${fastInside.errors} | ${fastInsideRatio.toFixed(2)}x of bare | | |`,
);
console.log(
  `| plain express 5 app, constant JSON body (peer of the two rows below) | ${fmt(plainExpress.rps)} | ${plainExpress.p99} ms | ${us(plainExpress)} | ${plainExpress.non2xx} / ${plainExpress.errors} | 1.00x | | |`,
);
for (const [name, r] of [
  ['`createRestApp`', appOfExpress],
  ['`createRestMiddleware` inside express', insideOfExpress],
] as const) {
  console.log(
    `| Vesta REST \`/genid\`, ${name}, against plain express | | | | | ${r.rps.toFixed(2)}x by requests/s, ${r.cpu.toFixed(2)}x by CPU per request | >= ${EXPRESS_FLOOR_TARGET}x | ${met(Math.min(r.rps, r.cpu) >= EXPRESS_FLOOR_TARGET)} |`,
  );
}
console.log(
  `| Vesta REST \`/genid\`, \`createRestMiddleware\` ahead of express | ${fmt(fastAhead.rps)} | ${fastAhead.p99} ms | ${us(fastAhead)} | ${fastAhead.non2xx} / ${fastAhead.errors} | ${fastAheadRatio.toFixed(2)}x of bare | | |`,
);
