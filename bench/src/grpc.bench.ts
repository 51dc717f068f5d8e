/**
 * gRPC benchmark, one run, loopback, the server in its own process (a central id server with
 * the gRPC service beside it, over the same id service):
 * 1. GenIds streaming: streams of 1,000,000 ids one after the other for VESTA_BENCH_SECONDS,
 *    ids/s against the layout's cap of 2^20 ids per second.
 * 2. Single ids, 1 and 16 in flight on each of 4 connections: gRPC GenId calls/s against the
 *    TCP protocol's single-id GENERATE (ProtocolConnection) in the same run, alternated
 *    VESTA_BENCH_ROUNDS (default 2) times; the ratio uses the means.
 * Run: pnpm bench (all), or: sh scripts/pnpm.sh exec tsx bench/src/grpc.bench.ts
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { credentials, Metadata, type Client, type GrpcObject } from '@grpc/grpc-js';
import { loadVestaProto } from '@vesta/grpc';
import { ProtocolConnection } from '@vesta/server/protocol';
import { startBenchProcess, stopBenchProcess } from './benchProcess.js';

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
let streamed = 0;
const streamStart = performance.now();
while (performance.now() - streamStart < SECONDS * 1000) {
  for await (const batch of (grpcClients[0] as VestaClient).GenIds(
    { count: STREAM },
    new Metadata(),
  )) {
    streamed += (batch['ids'] as string[]).length;
  }
}
const streamRate = streamed / ((performance.now() - streamStart) / 1000);

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

for (const c of grpcClients) c.close();
await Promise.all(tcpClients.map((c) => c.close()));
await stopBenchProcess(server);

console.log(
  `${SECONDS} s phases, ${ROUNDS} alternated rounds, loopback, server in its own process.\n`,
);
console.log('| GenIds streaming | ids/s | of the layout cap (2^20/s) |');
console.log('| --- | --- | --- |');
console.log(
  `| streams of ${STREAM.toLocaleString('en-US')} ids | ${Math.round(streamRate).toLocaleString('en-US')} | ${((streamRate / CAP) * 100).toFixed(1)}% |`,
);
console.log('\n| GenId against the TCP protocol | gRPC calls/s | TCP GENERATE(1)/s | ratio |');
console.log('| --- | --- | --- | --- |');
for (const row of rows) console.log(row);
