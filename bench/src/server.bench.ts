/**
 * Central-server benchmark, one run, loopback, each server in its own process:
 * 1. Single-id GENERATE requests/s, 1 in flight on each of 4 connections, against a raw
 *    node:net echo of 8-byte frames (target >= 0.85x, issue 37; it was 0.7x). Every client awaits one promise per
 *    request. Two Vesta rows: through the real client (ProtocolConnection: request ids,
 *    deadlines, parsed answers), and behind the same minimal client as the echo
 *    (FrameCountingClient), which isolates the server. The echo and Vesta phases alternate,
 *    VESTA_BENCH_ROUNDS (default 2) times, and the ratios use the means, so a load that drifts
 *    during the run weighs on both sides alike.
 * 2. Ids/s with 64 GENERATE(1000) requests in flight on each of 4 connections, against the
 *    layout's cap of 2^20 ids per second per server (target >= 90%).
 * 3. Redis INCR through ioredis at the same concurrency (1 and 64 in flight on 4 connections),
 *    against a throwaway local redis-server (scripts/ensure-redis.sh installs it when missing).
 * 4. One caller awaiting `genId()` one at a time: the client with `prefetch` (one server, the
 *    same standard max-peak layout, capped at 2^20 ids/s) against the embedded service's
 *    `genId()` (target >= 0.5x), alternated VESTA_BENCH_ROUNDS times; and the same client
 *    without prefetch (one round trip per id) for scale.
 * 5. Fair service: one caller awaiting `genId()` one at a time through the real client (no
 *    prefetch, 1 s request timeout) while 200 other connections each pipeline 100
 *    GENERATE(100000) and never read; reports the calls answered and the p50/p99 latency
 *    (target: all answered, p99 < 100 ms), on a server of its own started for this phase.
 * VESTA_BENCH_SECONDS (default 5) sets each phase's length.
 * Run: pnpm bench (all), or: sh scripts/ensure-redis.sh && sh scripts/pnpm.sh exec tsx bench/src/server.bench.ts
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { connect, createServer, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { silentLogger } from '@vesta/core';
import { createEmbeddedIdService } from '@vesta/embedded';
import { createIdClient } from '@vesta/server';
import {
  allocFrame,
  HEADER_BYTES,
  Op,
  PROTOCOL_VERSION,
  ProtocolConnection,
} from '@vesta/server/protocol';
import { startBenchProcess, stopBenchProcess, type BenchProcess } from './benchProcess.js';
import { FrameCountingClient } from './server/FrameCountingClient.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env.VESTA_BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.VESTA_BENCH_ROUNDS ?? 2);
const CONNECTIONS = 4;
const DEEP = 64;
const BATCH = 1000;
const CAP = 2 ** 20;

function start(file: string): Promise<BenchProcess> {
  return startBenchProcess(join(HERE, 'server', file));
}

/**
 * Runs `inFlight` loops per connection for SECONDS (after a 1 s warm-up), each awaiting `op`;
 * returns operations/s and units/s (`unitsOf` the result, 1 per operation by default).
 */
async function drive<C, R>(
  conns: C[],
  inFlight: number,
  op: (c: C) => Promise<R>,
  unitsOf: (result: R) => number = () => 1,
): Promise<{ ops: number; units: number }> {
  let ops = 0;
  let units = 0;
  let counting = false;
  let running = true;
  const loop = async (c: C): Promise<void> => {
    while (running) {
      const result = await op(c);
      if (counting) {
        ops++;
        units += unitsOf(result);
      }
    }
  };
  const loops = conns.flatMap((c) => Array.from({ length: inFlight }, () => loop(c)));
  await new Promise((resolve) => setTimeout(resolve, 1000));
  counting = true;
  const t0 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  counting = false;
  const s = (performance.now() - t0) / 1000;
  running = false;
  await Promise.all(loops);
  return { ops: ops / s, units: units / s };
}

/**
 * One caller awaiting `op` in a loop for SECONDS after a 1 s warm-up; returns calls/s. The
 * clock is read every 1000 calls, not through a timer as in {@link drive}: calls that resolve
 * without I/O (a prefetch buffer, the embedded service) never let a timer fire.
 */
async function driveSerial(op: () => Promise<unknown>): Promise<number> {
  const run = async (ms: number): Promise<number> => {
    let calls = 0;
    const t0 = performance.now();
    let t = t0;
    while (t - t0 < ms) {
      for (let i = 0; i < 1000; i++) await op();
      calls += 1000;
      t = performance.now();
    }
    return calls / ((t - t0) / 1000);
  };
  await run(1000);
  return run(SECONDS * 1000);
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const ratio = (n: number): string => n.toFixed(2);

/** The mean rate of phases of the same measure (each lasts SECONDS). */
function mean(phases: { ops: number; units: number }[]): { ops: number; units: number } {
  const n = phases.length;
  return {
    ops: phases.reduce((a, p) => a + p.ops, 0) / n,
    units: phases.reduce((a, p) => a + p.units, 0) / n,
  };
}

// 1. Echo baseline and single-id requests, alternating; 2. ids/s.
const echo = await start('echoServer.ts');
const vesta = await start('vestaServer.ts');
const echoClients = await Promise.all(
  Array.from({ length: CONNECTIONS }, () =>
    FrameCountingClient.connect(echo.port, Buffer.alloc(8), 8),
  ),
);
const hello = allocFrame(1, Op.HELLO, 4);
hello.writeUInt16BE(PROTOCOL_VERSION, HEADER_BYTES);
hello.writeUInt16BE(0, HEADER_BYTES + 2);
const generateOne = allocFrame(2, Op.GENERATE, 4);
generateOne.writeUInt32BE(1, HEADER_BYTES);
// Answers: the welcome is 9 + 35 bytes, a one-id GENERATE answer 9 + 12.
const minimalClients = await Promise.all(
  Array.from({ length: CONNECTIONS }, () =>
    FrameCountingClient.connect(vesta.port, generateOne, 21, { frame: hello }),
  ),
);
const conns = await Promise.all(
  Array.from({ length: CONNECTIONS }, () =>
    ProtocolConnection.connect(
      { host: '127.0.0.1', port: vesta.port },
      { requestTimeoutMs: 30_000 },
    ),
  ),
);
const echoRounds = [];
const singleRounds = [];
const minimalRounds = [];
for (let round = 0; round < ROUNDS; round++) {
  echoRounds.push(await drive(echoClients, 1, (c) => c.call()));
  singleRounds.push(await drive(conns, 1, (c) => c.generateOne()));
  minimalRounds.push(await drive(minimalClients, 1, (c) => c.call()));
}
const echoRate = mean(echoRounds);
const single = mean(singleRounds);
const minimal = mean(minimalRounds);
// Ids per time unit (second) of the max-peak layout: a wall-clock window holds partial seconds
// at both ends, whose unused sequence would count as extra capacity; only whole seconds count.
const perSecond = new Map<number, number>();
const secondOf = (id: bigint): number => Number((id >> 30n) & 0x3fffffffn);
const deep = await drive(
  conns,
  DEEP,
  (c) => c.generate(BATCH),
  (ids) => {
    const first = ids[0];
    const last = ids[ids.length - 1];
    if (first !== undefined && last !== undefined && secondOf(first) === secondOf(last)) {
      perSecond.set(secondOf(first), (perSecond.get(secondOf(first)) ?? 0) + ids.length);
    } else {
      for (const id of ids) perSecond.set(secondOf(id), (perSecond.get(secondOf(id)) ?? 0) + 1);
    }
    return ids.length;
  },
);
const wholeSeconds = [...perSecond.keys()].sort((a, b) => a - b).slice(1, -1);
const idsPerWholeSecond =
  wholeSeconds.reduce((sum, second) => sum + (perSecond.get(second) ?? 0), 0) /
  Math.max(1, wholeSeconds.length);
for (const c of [...echoClients, ...minimalClients]) c.close();
await Promise.all(conns.map((c) => c.close()));

// 4. One caller, genId() one at a time: prefetching client, embedded service, plain client.
const embeddedStateDir = mkdtempSync(join(tmpdir(), 'vesta-bench-prefetch-'));
const embedded = await createEmbeddedIdService({
  machineId: 31,
  stateDir: embeddedStateDir,
  logger: silentLogger,
});
const vestaUrl = `127.0.0.1:${vesta.port}`;
const prefetching = await createIdClient({
  servers: [vestaUrl],
  prefetch: true,
  requestTimeoutMs: 30_000,
  logger: silentLogger,
});
const plainClient = await createIdClient({
  servers: [vestaUrl],
  requestTimeoutMs: 30_000,
  logger: silentLogger,
});
const prefetchRounds: number[] = [];
const embeddedRounds: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  prefetchRounds.push(await driveSerial(() => prefetching.genId()));
  embeddedRounds.push(await driveSerial(() => embedded.genId()));
}
const plainSerial = await driveSerial(() => plainClient.genId());
const prefetchInfo = prefetching.info().prefetch;
await Promise.all([prefetching.close(), plainClient.close(), embedded.close()]);
rmSync(embeddedStateDir, { recursive: true, force: true });
// 5. Single ids through the real client while 200 connections flood and never read.
const FLOODERS = 200;
const FLOOD_BATCH = 100_000;
// A machine id of its own: the server of phases 1-3 still runs (one id, one live instance).
const flooded = await startBenchProcess(join(HERE, 'server', 'vestaServer.ts'), {
  VESTA_BENCH_MACHINE_ID: '1001',
});
const floodFrames = [hello];
for (let i = 0; i < 100; i++) {
  const frame = allocFrame(i + 2, Op.GENERATE, 4);
  frame.writeUInt32BE(FLOOD_BATCH, HEADER_BYTES);
  floodFrames.push(frame);
}
const floodBytes = Buffer.concat(floodFrames);
const flooders = await Promise.all(
  Array.from(
    { length: FLOODERS },
    () =>
      new Promise<Socket>((resolve) => {
        const socket = connect(flooded.port, '127.0.0.1');
        socket.pause();
        socket.on('error', () => undefined);
        socket.once('connect', () => {
          socket.write(floodBytes);
          resolve(socket);
        });
      }),
  ),
);
const underFlood = await createIdClient({
  servers: [`127.0.0.1:${flooded.port}`],
  maxAttempts: 1,
  logger: silentLogger,
});
// The flood settles for 2 s (the server paces it), then the caller is timed.
await new Promise((resolve) => setTimeout(resolve, 2000));
const floodLatencies: number[] = [];
let floodFailures = 0;
const floodEnd = performance.now() + SECONDS * 1000;
while (performance.now() < floodEnd) {
  const t0 = performance.now();
  try {
    await underFlood.genId();
    floodLatencies.push(performance.now() - t0);
  } catch {
    floodFailures++;
  }
}
await underFlood.close();
for (const socket of flooders) socket.destroy();
await stopBenchProcess(flooded, 10_000);
floodLatencies.sort((a, b) => a - b);
const floodP50 = floodLatencies[Math.floor(floodLatencies.length / 2)] ?? NaN;
const floodP99 = floodLatencies[Math.ceil(floodLatencies.length * 0.99) - 1] ?? NaN;
const floodCalls = floodLatencies.length + floodFailures;

const prefetchSerial = prefetchRounds.reduce((a, b) => a + b, 0) / ROUNDS;
const embeddedSerial = embeddedRounds.reduce((a, b) => a + b, 0) / ROUNDS;
await Promise.all([stopBenchProcess(echo, 10_000), stopBenchProcess(vesta, 10_000)]);

// 3. Redis INCR.
let redisLine = '';
let redisSingle = { ops: NaN, units: NaN };
let redisDeep = { ops: NaN, units: NaN };
try {
  execFileSync('sh', [join(HERE, '..', '..', 'scripts', 'ensure-redis.sh')], { stdio: 'inherit' });
  const port = await freePort();
  const redis = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const clients = Array.from(
    { length: CONNECTIONS },
    () => new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1 }),
  );
  // Connection refusals while redis-server starts are retried below; they are not errors.
  for (const c of clients) c.on('error', () => undefined);
  for (let i = 0; i < 50; i++) {
    try {
      await Promise.all(clients.map((c) => c.connect()));
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  redisSingle = await drive(clients, 1, (c) => c.incr('vesta:bench'));
  redisDeep = await drive(clients, DEEP, (c) => c.incr('vesta:bench'));
  for (const c of clients) c.disconnect();
  redis.kill('SIGTERM');
  redisLine = `redis-server ${execFileSync('redis-server', ['--version']).toString().split(' ')[2] ?? ''}`;
} catch (error) {
  redisLine = `Redis not measured: ${(error as Error).message.split('\n')[0] ?? ''}`;
}

const singleRatio = single.ops / echoRate.ops;
const minimalRatio = minimal.ops / echoRate.ops;
const capShare = idsPerWholeSecond / CAP;
const prefetchRatio = prefetchSerial / embeddedSerial;
console.log(
  `Loopback, ${CONNECTIONS} connections, each server in its own process, ${SECONDS} s per phase after 1 s warm-up, single-id phases alternated ${ROUNDS} times. ${redisLine}. Load average at the end: ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')} on ${availableParallelism()} CPUs.`,
);
console.log('');
console.log('| Measure | Vesta central server | Peer | Ratio | Target |');
console.log('| --- | ---: | ---: | ---: | --- |');
console.log(
  `| Single-id requests/s, 1 in flight per connection, Vesta client (ProtocolConnection) | ${fmt(single.ops)} | ${fmt(echoRate.ops)} (node:net 8-byte echo, minimal client) | ${ratio(singleRatio)}x | >= 0.85x ${singleRatio >= 0.85 ? 'met' : '**not met**'} |`,
);
console.log(
  `| Single-id requests/s, 1 in flight per connection, same minimal client as the echo | ${fmt(minimal.ops)} | ${fmt(echoRate.ops)} (node:net 8-byte echo, minimal client) | ${ratio(minimalRatio)}x | (server alone) |`,
);
console.log(
  `| Ids/s, 64 GENERATE(${BATCH}) in flight per connection, over the ${wholeSeconds.length} whole seconds of the window | ${fmt(idsPerWholeSecond)} (${fmt(deep.ops)} req/s) | ${fmt(CAP)} (layout cap, 2^20/s) | ${(capShare * 100).toFixed(1)}% | >= 90% ${capShare >= 0.9 ? 'met' : 'NOT met'} |`,
);
console.log(
  `| Single-id requests/s vs Redis INCR, 1 in flight | ${fmt(single.ops)} | ${fmt(redisSingle.ops)} (INCR/s) | ${ratio(single.ops / redisSingle.ops)}x | - |`,
);
console.log(
  `| Ids/s vs Redis INCR, 64 in flight | ${fmt(idsPerWholeSecond)} | ${fmt(redisDeep.ops)} (INCR/s) | ${ratio(idsPerWholeSecond / redisDeep.ops)}x | - |`,
);
console.log(
  `| genId() one at a time, 1 caller, client with prefetch (batch size at the end ${fmt(prefetchInfo?.batchSize ?? 0)}, ${fmt(prefetchInfo?.refills ?? 0)} refills, ${fmt(prefetchInfo?.droppedStale ?? 0)} ids dropped as stale) | ${fmt(prefetchSerial)} | ${fmt(embeddedSerial)} (embedded genId(), same layout) | ${ratio(prefetchRatio)}x | >= 0.5x ${prefetchRatio >= 0.5 ? 'met' : 'NOT met'} |`,
);
console.log(
  `| genId() one at a time, 1 caller, client without prefetch | ${fmt(plainSerial)} | ${fmt(embeddedSerial)} (embedded genId(), same layout) | ${ratio(plainSerial / embeddedSerial)}x | - |`,
);
const floodMet = floodFailures === 0 && floodP99 < 100;
console.log(
  `| Single ids under a flood: genId() one at a time through the client while ${FLOODERS} connections pipeline GENERATE(${fmt(FLOOD_BATCH)}) and never read | p99 ${floodP99.toFixed(1)} ms (p50 ${floodP50.toFixed(1)} ms, ${fmt(floodLatencies.length)} of ${fmt(floodCalls)} answered) | - | - | all answered, p99 < 100 ms ${floodMet ? 'met' : 'NOT met'} |`,
);
process.exit(0);
