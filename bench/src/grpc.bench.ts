/**
 * gRPC benchmark, one run, loopback, the server in its own process (a central id server with
 * the gRPC service beside it, over the same id service):
 * 1. GenIds streaming: streams of 1,000,000 ids one after the other for VESTA_BENCH_SECONDS,
 *    ids/s against the layout's cap of 2^20 ids per second: through the Node client of
 *    `loadVestaProto` (each id decoded to a decimal string), and through a client that only
 *    counts each message's bytes (the server alone, as another language's client would see it).
 * 2. Single ids, 1 and 16 in flight on each of 4 connections: gRPC GenId calls/s against the
 *    TCP protocol's single-id GENERATE (ProtocolConnection) in the same run, alternated
 *    VESTA_BENCH_ROUNDS (default 2) times; the ratio uses the means.
 * 3. Server CPU per single-id call (from /proc, the figure other load disturbs least), 16 in flight
 *    on each of 4 connections: Vesta's GenId (grpc-js) against GenId on Connect for Node
 *    (`connectGrpcServer.ts`), on a lean unary path of our own (`leanGrpcServer.ts`), the floor
 *    of any gRPC server on node:http2 (a bare `node:http2` server answering a constant reply,
 *    `http2GrpcFloor.ts`) and REST `/genid` (HTTP/1.1 keep-alive, the standalone server).
 * Run: pnpm bench (all), or: sh scripts/pnpm.sh exec tsx bench/src/grpc.bench.ts
 */
import http from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  credentials,
  makeGenericClientConstructor,
  Metadata,
  type Client,
  type GrpcObject,
  type ServiceDefinition,
} from '@grpc/grpc-js';
import { loadVestaProto } from '@vesta/grpc';
import { ProtocolConnection } from '@vesta/server/protocol';
import { cpuMs, startBenchProcess, stopBenchProcess } from './benchProcess.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env.VESTA_BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.VESTA_BENCH_ROUNDS ?? 2);
const CONNECTIONS = 4;
const CAP = 2 ** 20;
const STREAM = 1_000_000;

type Reply = Record<string, unknown>;
interface VestaClient extends Client {
  GenId(request: Reply, metadata: Metadata, callback: (e: Error | null, r: Reply) => void): void;
  GenIds(request: Reply, metadata: Metadata): AsyncIterable<Reply>;
}
const proto = loadVestaProto();
const Vesta = ((proto['vesta'] as GrpcObject)['v1'] as GrpcObject)['Vesta'] as unknown as new (
  target: string,
  creds: ReturnType<typeof credentials.createInsecure>,
  options: Record<string, unknown>,
) => VestaClient;

/** A client of GenIds that reads each message as its byte count: 8 bytes an id, 2-4 of framing. */
const definition = (
  ((proto['vesta'] as GrpcObject)['v1'] as GrpcObject)['Vesta'] as unknown as {
    service: ServiceDefinition;
  }
).service;
const CountingClient = makeGenericClientConstructor(
  {
    GenIds: { ...definition['GenIds'], responseDeserialize: (bytes: Buffer) => bytes.length },
  } as ServiceDefinition,
  'Counting',
) as unknown as new (
  target: string,
  creds: ReturnType<typeof credentials.createInsecure>,
) => Client & { GenIds(request: Reply, metadata: Metadata): AsyncIterable<number> };

/** `inFlight` loops per connection for SECONDS after a 1 s warm-up: operations/s. */
async function drive<C>(conns: C[], inFlight: number, op: (c: C) => Promise<unknown>) {
  let ops = 0;
  let counting = false;
  let running = true;
  const loop = async (c: C): Promise<void> => {
    while (running) {
      await op(c);
      if (counting) ops++;
    }
  };
  const loops = conns.flatMap((c) => Array.from({ length: inFlight }, () => loop(c)));
  await new Promise((r) => setTimeout(r, 1000));
  counting = true;
  const started = performance.now();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  counting = false;
  const seconds = (performance.now() - started) / 1000;
  running = false;
  await Promise.all(loops);
  return ops / seconds;
}

const server = await startBenchProcess(join(HERE, 'server', 'vestaGrpcServer.ts'));
const target = `127.0.0.1:${String(server.line['grpcPort'])}`;
// One HTTP/2 connection per client (a channel option keeps them apart).
const grpcClients = Array.from(
  { length: CONNECTIONS },
  (_, i) =>
    new Vesta(target, credentials.createInsecure(), { 'grpc.channel_pooling_id': String(i) }),
);
const tcpClients = await Promise.all(
  Array.from({ length: CONNECTIONS }, () =>
    ProtocolConnection.connect({ host: '127.0.0.1', port: server.port }),
  ),
);
const genId = (c: VestaClient): Promise<Reply> =>
  new Promise((resolve, reject) =>
    c.GenId({}, new Metadata(), (e, r) => (e === null ? resolve(r) : reject(e))),
  );

// 1. Streaming.
async function streamRate(
  ids: (stream: AsyncIterable<unknown>) => Promise<number>,
  open: () => AsyncIterable<unknown>,
) {
  let streamed = 0;
  const started = performance.now();
  while (performance.now() - started < SECONDS * 1000) streamed += await ids(open());
  return streamed / ((performance.now() - started) / 1000);
}
const decodedRate = await streamRate(
  async (stream) => {
    let n = 0;
    for await (const batch of stream) n += ((batch as Reply)['ids'] as string[]).length;
    return n;
  },
  () => (grpcClients[0] as VestaClient).GenIds({ count: STREAM }, new Metadata()),
);
const counting = new CountingClient(target, credentials.createInsecure());
const countedRate = await streamRate(
  async (stream) => {
    let n = 0;
    // 8 bytes an id after the tag and the length's varint (1 + 3 bytes for 16,384 ids).
    for await (const bytes of stream) n += Math.floor((bytes as number) / 8);
    return n;
  },
  () => counting.GenIds({ count: STREAM }, new Metadata()),
);
counting.close();

// 2. Single ids, alternated.
const rows: string[] = [];
for (const inFlight of [1, 16]) {
  let grpcSum = 0;
  let tcpSum = 0;
  for (let round = 0; round < ROUNDS; round++) {
    tcpSum += await drive(tcpClients, inFlight, (c) => c.generateOne());
    grpcSum += await drive(grpcClients, inFlight, genId);
  }
  const grpc = grpcSum / ROUNDS;
  const tcp = tcpSum / ROUNDS;
  rows.push(
    `| single id, ${inFlight} in flight x ${CONNECTIONS} connections | ${Math.round(grpc).toLocaleString('en-US')} | ${Math.round(tcp).toLocaleString('en-US')} | ${(grpc / tcp).toFixed(2)}x |`,
  );
}

// 3. Server CPU per call.
/** Server CPU per call in microseconds while `op` runs 16 in flight on each of `conns`. */
async function cpuPerCall<C>(pid: number | undefined, conns: C[], op: (c: C) => Promise<unknown>) {
  const before = cpuMs(pid);
  const started = performance.now();
  const rate = await drive(conns, 16, op);
  // drive runs 1 s of warm-up, then SECONDS counted: the CPU of both over the calls of both.
  const calls = rate * ((performance.now() - started) / 1000);
  return ((cpuMs(pid) - before) * 1000) / calls;
}
/** A gRPC server fixture in its own process, with CONNECTIONS grpc-js clients of it. */
async function grpcPeer(fixture: string) {
  const peer = await startBenchProcess(join(HERE, 'server', fixture));
  const clients = Array.from(
    { length: CONNECTIONS },
    (_, i) =>
      new Vesta(`127.0.0.1:${String(peer.line['grpcPort'])}`, credentials.createInsecure(), {
        'grpc.channel_pooling_id': `${fixture}-${i}`,
      }),
  );
  return { peer, clients };
}
const floor = await grpcPeer('http2GrpcFloor.ts');
const connect = await grpcPeer('connectGrpcServer.ts');
const lean = await grpcPeer('leanGrpcServer.ts');
const restServer = await startBenchProcess(join(HERE, 'rest', 'vestaServer.ts'));
const restAgents = Array.from(
  { length: CONNECTIONS },
  () => new http.Agent({ keepAlive: true, maxSockets: 16 }),
);
const restGet = (a: http.Agent): Promise<void> =>
  new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port: restServer.port, path: '/genid', agent: a }, (res) => {
        res.resume();
        res.once('end', resolve);
      })
      .once('error', reject);
  });
const cpu = { grpc: 0, connect: 0, lean: 0, floor: 0, rest: 0 };
for (let round = 0; round < ROUNDS; round++) {
  cpu.grpc += await cpuPerCall(server.child.pid, grpcClients, genId);
  cpu.connect += await cpuPerCall(connect.peer.child.pid, connect.clients, genId);
  cpu.lean += await cpuPerCall(lean.peer.child.pid, lean.clients, genId);
  cpu.floor += await cpuPerCall(floor.peer.child.pid, floor.clients, genId);
  cpu.rest += await cpuPerCall(restServer.child.pid, restAgents, restGet);
}
for (const { peer, clients } of [floor, connect, lean]) {
  for (const c of clients) c.close();
  await stopBenchProcess(peer);
}
for (const a of restAgents) a.destroy();
await stopBenchProcess(restServer);

for (const c of grpcClients) c.close();
await Promise.all(tcpClients.map((c) => c.close()));
await stopBenchProcess(server);

console.log(
  `${SECONDS} s phases, ${ROUNDS} alternated rounds, loopback, server in its own process.\n`,
);
console.log('| GenIds streaming | ids/s | of the layout cap (2^20/s) |');
console.log('| --- | --- | --- |');
for (const [client, rate] of [
  ['Node client (ids decoded to strings)', decodedRate],
  ['counting client (the server alone)', countedRate],
] as const) {
  console.log(
    `| streams of ${STREAM.toLocaleString('en-US')} ids, ${client} | ${Math.round(rate).toLocaleString('en-US')} | ${((rate / CAP) * 100).toFixed(1)}% |`,
  );
}
const perCall = (us: number): string => `${(us / ROUNDS).toFixed(1)} us`;
console.log(
  `\n| server CPU per single-id call, 16 in flight x ${CONNECTIONS} connections | per call | vs REST |`,
);
console.log('| --- | --- | --- |');
for (const [name, us] of [
  ['Vesta gRPC `GenId` (grpc-js)', cpu.grpc],
  ['`GenId` on Connect for Node (`@connectrpc/connect-node`, gRPC protocol)', cpu.connect],
  ['`GenId` on a lean unary path of our own on `node:http2` (GenId only)', cpu.lean],
  ['bare `node:http2` gRPC floor (constant reply, no library)', cpu.floor],
  ['Vesta REST `/genid` (HTTP/1.1 keep-alive)', cpu.rest],
] as const) {
  console.log(`| ${name} | ${perCall(us)} | ${(us / cpu.rest).toFixed(2)}x |`);
}
console.log(
  `\nTarget (issue 37): gRPC GenId at most REST's CPU per call: ${cpu.grpc <= cpu.rest ? 'met' : '**not met**'}.`,
);
console.log('\n| GenId against the TCP protocol | gRPC calls/s | TCP GENERATE(1)/s | ratio |');
console.log('| --- | --- | --- | --- |');
for (const row of rows) console.log(row);
