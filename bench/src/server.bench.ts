/**
 * Central-server benchmark, one run, loopback, each server in its own process:
 * 1. Single-id GENERATE requests/s, 1 in flight on each of 4 connections, against a raw
 *    node:net echo of 8-byte frames with the same client loop (target >= 0.7x).
 * 2. Ids/s with 64 GENERATE(1000) requests in flight on each of 4 connections, against the
 *    layout's cap of 2^20 ids per second per server (target >= 90%).
 * 3. Redis INCR through ioredis at the same concurrency (1 and 64 in flight on 4 connections),
 *    against a throwaway local redis-server (scripts/ensure-redis.sh installs it when missing).
 * VESTA_BENCH_SECONDS (default 5) sets each phase's length.
 * Run: pnpm bench (all), or: sh scripts/ensure-redis.sh && sh scripts/pnpm.sh exec tsx bench/src/server.bench.ts
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { ProtocolConnection } from '@vesta/server';

const HERE = dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env.VESTA_BENCH_SECONDS ?? 5);
const CONNECTIONS = 4;
const DEEP = 64;
const BATCH = 1000;
const CAP = 2 ** 20;

async function start(file: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(HERE, 'server', file)], {
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

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Runs `inFlight` loops per connection for SECONDS (after a 1 s warm-up); returns operations/s and units/s. */
async function drive<C>(
  conns: C[],
  inFlight: number,
  op: (c: C) => Promise<number>,
): Promise<{ ops: number; units: number }> {
  let ops = 0;
  let units = 0;
  let counting = false;
  let running = true;
  const loop = async (c: C): Promise<void> => {
    while (running) {
      const n = await op(c);
      if (counting) {
        ops++;
        units += n;
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

/** A client of the echo server: one 8-byte frame out, the same 8 bytes back. */
class EchoClient {
  readonly #socket: Socket;
  readonly #waiting: (() => void)[] = [];
  #buffered = 0;
  readonly #frame = Buffer.alloc(8);
  constructor(socket: Socket) {
    this.#socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.#buffered += chunk.length;
      while (this.#buffered >= 8) {
        this.#buffered -= 8;
        this.#waiting.shift()?.();
      }
    });
  }
  call(): Promise<number> {
    return new Promise((resolve) => {
      this.#waiting.push(() => resolve(1));
      this.#socket.write(this.#frame);
    });
  }
  close(): void {
    this.#socket.destroy();
  }
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

// 1. Echo baseline and single-id requests.
const echo = await start('echoServer.ts');
const echoClients = await Promise.all(
  Array.from(
    { length: CONNECTIONS },
    () =>
      new Promise<EchoClient>((resolve) => {
        const s = connect(echo.port, '127.0.0.1', () => resolve(new EchoClient(s)));
      }),
  ),
);
const echoRate = await drive(echoClients, 1, (c) => c.call());
for (const c of echoClients) c.close();
await stop(echo.child);

const vesta = await start('vestaServer.ts');
const conns = await Promise.all(
  Array.from({ length: CONNECTIONS }, () =>
    ProtocolConnection.connect(
      { host: '127.0.0.1', port: vesta.port },
      { requestTimeoutMs: 30_000 },
    ),
  ),
);
const single = await drive(conns, 1, (c) => c.generateOne().then(() => 1));
const deep = await drive(conns, DEEP, (c) => c.generate(BATCH).then((ids) => ids.length));
await Promise.all(conns.map((c) => c.close()));
await stop(vesta.child);

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
  redisSingle = await drive(clients, 1, (c) => c.incr('vesta:bench').then(() => 1));
  redisDeep = await drive(clients, DEEP, (c) => c.incr('vesta:bench').then(() => 1));
  for (const c of clients) c.disconnect();
  redis.kill('SIGTERM');
  redisLine = `redis-server ${execFileSync('redis-server', ['--version']).toString().split(' ')[2] ?? ''}`;
} catch (error) {
  redisLine = `Redis not measured: ${(error as Error).message.split('\n')[0] ?? ''}`;
}

const singleRatio = single.ops / echoRate.ops;
const capShare = deep.units / CAP;
console.log(
  `Loopback, ${CONNECTIONS} connections, each server in its own process, ${SECONDS} s per phase after 1 s warm-up. ${redisLine}.`,
);
console.log('');
console.log('| Measure | Vesta central server | Peer | Ratio | Target |');
console.log('| --- | ---: | ---: | ---: | --- |');
console.log(
  `| Single-id requests/s, 1 in flight per connection | ${fmt(single.ops)} | ${fmt(echoRate.ops)} (node:net 8-byte echo) | ${ratio(singleRatio)}x | >= 0.7x ${singleRatio >= 0.7 ? 'met' : 'NOT met'} |`,
);
console.log(
  `| Ids/s, 64 GENERATE(${BATCH}) in flight per connection | ${fmt(deep.units)} (${fmt(deep.ops)} req/s) | ${fmt(CAP)} (layout cap, 2^20/s) | ${(capShare * 100).toFixed(1)}% | >= 90% ${capShare >= 0.9 ? 'met' : 'NOT met'} |`,
);
console.log(
  `| Single-id requests/s vs Redis INCR, 1 in flight | ${fmt(single.ops)} | ${fmt(redisSingle.ops)} (INCR/s) | ${ratio(single.ops / redisSingle.ops)}x | - |`,
);
console.log(
  `| Ids/s vs Redis INCR, 64 in flight | ${fmt(deep.units)} | ${fmt(redisDeep.ops)} (INCR/s) | ${ratio(deep.units / redisDeep.ops)}x | - |`,
);
process.exit(0);
