import { readFileSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { silentLogger } from '@vesta/core';
import { describe, expect, it } from 'vitest';
import { createIdClient } from '../client/IdClient.js';
import { GenerateMessage } from '../protocol/GenerateMessage.js';
import { HelloMessage } from '../protocol/HelloMessage.js';
import { PROTOCOL_VERSION } from '../protocol/protocolConstants.js';
import { spawnServer } from '../testing/spawnServer.js';

const FLOODERS = 200;
const FRAMES_PER_FLOODER = 100;
/** The service's default max batch: each flood frame asks for as much as one request may. */
const MAX_BATCH = 100_000;
/** Ids issued (to the flood) before the measure starts: about a second of the paced layout. */
const FLOOD_ESTABLISHED_IDS = 1_000_000;
const MEASURED_CALLS = 300;
const P99_BOUND_MS = 100;
/** Default byte budget (64 MiB) + one 800 kB answer per connection + the process itself. */
const RSS_BOUND_BYTES = 400 * 1024 * 1024;

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  return Number(kb) * 1024;
}

/** A free port on 127.0.0.1 (for the server's metrics listener). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** `vesta_ids_issued_total` as the server's /metrics reports it. */
async function idsIssued(metricsPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return Number(/^vesta_ids_issued_total\S* (\d+)/m.exec(text)?.[1] ?? 0);
}

/** Opens a connection, pipelines a hello and GENERATE(maxBatch) frames, and never reads. */
function flooder(port: number, sockets: Socket[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    socket.pause();
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      const frames = [
        HelloMessage.encode(1, { protocolVersion: PROTOCOL_VERSION, token: undefined }),
      ];
      for (let i = 0; i < FRAMES_PER_FLOODER; i++)
        frames.push(GenerateMessage.encodeRequest(i + 2, MAX_BATCH));
      socket.write(Buffer.concat(frames));
      resolve();
    });
    socket.once('close', () => reject(new Error('a flood connection was closed early')));
  });
}

describe.runIf(process.platform === 'linux')('the id server shares its ids fairly', () => {
  it(`serves every single id of a real client within ${P99_BOUND_MS} ms (p99) while ${FLOODERS} connections pipeline GENERATE(${MAX_BATCH}) and never read`, async () => {
    const metricsPort = await freePort();
    const server = await spawnServer({ port: 0, machineId: 1002, stateDir: false, metricsPort });
    const sockets: Socket[] = [];
    let maxRss = 0;
    let stop = false;
    const sampler = (async () => {
      // Every 20 ms until told, at most 5 minutes; a runaway server is killed at twice the bound.
      for (let i = 0; !stop && i < 15_000; i++) {
        maxRss = Math.max(maxRss, rssOf(server.child.pid as number));
        if (maxRss > 2 * RSS_BOUND_BYTES) {
          server.child.kill('SIGKILL');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const ids = await createIdClient({
      servers: [`127.0.0.1:${server.port}`],
      logger: silentLogger,
      maxAttempts: 1,
      keepAliveMs: 60_000,
    });
    const latencies: number[] = [];
    const served = new Set<bigint>();
    const errors: unknown[] = [];
    let issuedBefore = 0;
    try {
      await Promise.all(Array.from({ length: FLOODERS }, () => flooder(server.port, sockets)));
      // The flood is established once the server has issued it a second's worth of ids.
      for (let i = 0; i < 600 && issuedBefore < FLOOD_ESTABLISHED_IDS; i++) {
        issuedBefore = await idsIssued(metricsPort);
        if (issuedBefore < FLOOD_ESTABLISHED_IDS) await new Promise((r) => setTimeout(r, 50));
      }
      for (let i = 0; i < MEASURED_CALLS && maxRss <= 2 * RSS_BOUND_BYTES; i++) {
        const started = performance.now();
        try {
          served.add(await ids.genId());
          latencies.push(performance.now() - started);
        } catch (error) {
          errors.push(error);
        }
      }
    } finally {
      stop = true;
      await sampler;
      await ids.close();
      for (const socket of sockets) socket.destroy();
      server.child.kill('SIGKILL');
      await server.exited;
    }
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.ceil(latencies.length * 0.99) - 1] ?? Infinity;
    const p50 = latencies[Math.floor(latencies.length / 2)] ?? Infinity;
    console.info(
      `fair admission: ${served.size}/${MEASURED_CALLS} single ids, p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${(latencies.at(-1) ?? 0).toFixed(1)} ms, server RSS peak ${(maxRss / 2 ** 20).toFixed(0)} MiB, ${issuedBefore} ids issued to the flood before`,
    );
    expect(issuedBefore).toBeGreaterThanOrEqual(FLOOD_ESTABLISHED_IDS);
    expect(errors).toEqual([]);
    expect(served.size).toBe(MEASURED_CALLS);
    expect(p99).toBeLessThan(P99_BOUND_MS);
    expect(maxRss).toBeLessThan(RSS_BOUND_BYTES);
  });
});
