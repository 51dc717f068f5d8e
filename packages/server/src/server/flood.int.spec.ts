import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { silentLogger } from '@vesta/core';
import { describe, expect, it } from 'vitest';
import { createIdClient } from '../client/IdClient.js';
import { GenerateMessage } from '../protocol/GenerateMessage.js';
import { HelloMessage } from '../protocol/HelloMessage.js';
import { PROTOCOL_VERSION } from '../protocol/protocolConstants.js';
import { spawnServer } from '../testing/spawnServer.js';

const FLOODERS = 200;
const FRAMES_PER_FLOODER = 2000;
const MAX_BATCH = 10_000;
const GOOD_CALLS = 3;
/** The bound PROTOCOL.md states for this configuration (see "Memory"). */
const RSS_BOUND_BYTES = 400 * 1024 * 1024;

/** Resident set size of a process, from /proc (Linux). */
function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  return Number(kb) * 1024;
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

describe.runIf(process.platform === 'linux')('the id server under a pipelined flood', () => {
  it(`stays under ${RSS_BOUND_BYTES / 2 ** 20} MiB of RSS with ${FLOODERS} connections that never read, and still serves a client`, async () => {
    const server = await spawnServer({
      port: 0,
      machineId: 1000,
      stateDir: false,
      maxBatch: MAX_BATCH,
      maxTotalInFlight: 64,
    });
    const sockets: Socket[] = [];
    let maxRss = 0;
    let stop = false;
    const sampler = (async () => {
      // Every 20 ms until told, at most 10 minutes; a runaway server is killed at twice the bound.
      for (let i = 0; !stop && i < 30_000; i++) {
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
      requestTimeoutMs: 15_000,
      keepAliveMs: 60_000,
    });
    const served: bigint[] = [];
    const errors: unknown[] = [];
    try {
      await Promise.all(Array.from({ length: FLOODERS }, () => flooder(server.port, sockets)));
      for (let i = 0; i < GOOD_CALLS && maxRss <= 2 * RSS_BOUND_BYTES; i++) {
        try {
          served.push(await ids.genId());
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
    expect(errors).toEqual([]);
    expect(served).toHaveLength(GOOD_CALLS);
    expect(maxRss).toBeLessThan(RSS_BOUND_BYTES);
  });
});
