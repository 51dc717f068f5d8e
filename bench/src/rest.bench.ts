/**
 * REST benchmark: `/genid` requests/s of the Vesta REST server against a bare node:http server
 * returning a counter as JSON, and `/genids?count=1000` ids/s against the layout's capacity.
 * Same run, same settings: autocannon, 50 connections, keep-alive, 10 s each (VESTA_BENCH_SECONDS
 * overrides). Each server runs in its own process; autocannon in this one.
 * Run: pnpm bench (all), or: sh scripts/pnpm.sh exec tsx bench/src/rest.bench.ts
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { MAX_PEAK_META } from '@vesta/core';

const HERE = dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env.VESTA_BENCH_SECONDS ?? 10);
const CONNECTIONS = 50;
const RATIO_TARGET = 0.35;
const RPS_TARGET = 10_000;
const CAPACITY_TARGET = 0.9;

interface Server {
  child: ChildProcess;
  port: number;
}

async function start(file: string): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(HERE, 'rest', file)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', (line) =>
      resolve((JSON.parse(line) as { port: number }).port),
    );
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
  return { child, port };
}

async function stop(server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

async function load(
  port: number,
  path: string,
  seconds = SECONDS,
): Promise<{ rps: number; non2xx: number; errors: number; p99: number }> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${path}`,
    connections: CONNECTIONS,
    duration: seconds,
    pipelining: 1,
  });
  return {
    rps: result.requests.average,
    non2xx: result.non2xx,
    errors: result.errors,
    p99: result.latency.p99,
  };
}

async function measure(
  file: string,
  path: string,
): Promise<{ rps: number; non2xx: number; errors: number; p99: number }> {
  const server = await start(file);
  try {
    await load(server.port, path, 1); // warm-up: JIT, connections
    return await load(server.port, path);
  } finally {
    await stop(server);
  }
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const met = (ok: boolean): string => (ok ? 'met' : '**not met**');

const bare = await measure('bareServer.ts', '/');
const genid = await measure('vestaServer.ts', '/genid');
const genids = await measure('vestaServer.ts', '/genids?count=1000');

const ratio = genid.rps / bare.rps;
const idsPerSecond = genids.rps * 1000;
const capacity = MAX_PEAK_META.seq.max + 1; // ids per second per machine, max-peak
const fraction = idsPerSecond / capacity;

console.log(
  `autocannon, ${CONNECTIONS} connections, keep-alive, ${SECONDS} s per row after a 1 s warm-up; Node ${process.version}, ${process.platform}/${process.arch}.\n`,
);
console.log(
  '| server / route | requests/s | p99 latency | non-2xx / errors | figure | target | result |',
);
console.log('|---|---:|---:|---:|---:|---:|---|');
console.log(
  `| bare node:http, counter as JSON (peer) | ${fmt(bare.rps)} | ${bare.p99} ms | ${bare.non2xx} / ${bare.errors} | 1.00x | | |`,
);
console.log(
  `| Vesta REST \`/genid\` | ${fmt(genid.rps)} | ${genid.p99} ms | ${genid.non2xx} / ${genid.errors} | ${ratio.toFixed(2)}x of bare | >= ${RATIO_TARGET}x | ${met(ratio >= RATIO_TARGET)} |`,
);
console.log(
  `| Vesta REST \`/genid\` absolute | ${fmt(genid.rps)} | | | ${fmt(genid.rps)} req/s | >= ${fmt(RPS_TARGET)} req/s | ${met(genid.rps >= RPS_TARGET)} |`,
);
console.log(
  `| Vesta REST \`/genids?count=1000\` | ${fmt(genids.rps)} | ${genids.p99} ms | ${genids.non2xx} / ${genids.errors} | ${fmt(idsPerSecond)} ids/s = ${(fraction * 100).toFixed(1)}% of ${fmt(capacity)}/s | >= ${CAPACITY_TARGET * 100}% | ${met(fraction >= CAPACITY_TARGET)} |`,
);
