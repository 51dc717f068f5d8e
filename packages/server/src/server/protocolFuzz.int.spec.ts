import { connect } from 'node:net';
import { silentLogger } from '@vesta/core';
import { describe, expect, it } from 'vitest';
import { seeded } from '@vesta/testkit';
import { createIdClient } from '../client/IdClient.js';
import { DecodeMessage } from '../protocol/DecodeMessage.js';
import { allocFrame } from '../protocol/Frame.js';
import { GenerateMessage } from '../protocol/GenerateMessage.js';
import { HelloMessage } from '../protocol/HelloMessage.js';
import { InfoMessage } from '../protocol/InfoMessage.js';
import { MakeMessage } from '../protocol/MakeMessage.js';
import { PingMessage } from '../protocol/PingMessage.js';
import { PROTOCOL_VERSION } from '../protocol/protocolConstants.js';
import { SegmentMessage } from '../protocol/SegmentMessage.js';
import { TransTimeMessage } from '../protocol/TransTimeMessage.js';
import { startIdServer } from './startIdServer.js';

const CONNECTIONS = 240;
const FRAMES_PER_CONNECTION = 15;
const PARALLEL = 12;

function fuzzFrame(random: () => number): Buffer {
  const int = (n: number): number => Math.floor(random() * n);
  const valid = [
    () => GenerateMessage.encodeRequest(int(1e6), 1 + int(20)),
    () => DecodeMessage.encodeRequest(int(1e6), BigInt(int(2 ** 31)) << 20n),
    () => MakeMessage.encodeRequest(int(1e6), { time: int(1000), seq: int(1000) }),
    () => TransTimeMessage.encodeRequest(int(1e6), int(1000), undefined),
    () => InfoMessage.encodeRequest(int(1e6)),
    () => PingMessage.encodeRequest(int(1e6), Buffer.from('x')),
    () => SegmentMessage.encodeRequest(int(1e6), 'order', 1 + int(20)),
  ];
  const frame = (valid[int(valid.length)] as () => Buffer)();
  switch (int(6)) {
    case 0: {
      const bytes = Buffer.alloc(1 + int(64));
      for (let i = 0; i < bytes.length; i++) bytes[i] = int(256);
      return bytes;
    }
    case 1:
      return frame.subarray(0, int(frame.length));
    case 2: {
      const oversized = allocFrame(int(1e6), 2, 0);
      oversized.writeUInt32BE(2 ** 20 + int(2 ** 31), 0);
      return oversized;
    }
    case 3: {
      const unknown = allocFrame(int(1e6), 0x08 + int(0x70), int(8));
      return unknown;
    }
    default: {
      const flipped = Buffer.from(frame);
      const bit = int(flipped.length * 8);
      flipped[bit >> 3] = (flipped[bit >> 3] as number) ^ (1 << (bit & 7));
      return flipped;
    }
  }
}

/** Sends frames on a fresh connection, ends it, resolves once the server has closed it too. */
function fuzzConnection(port: number, frames: Buffer[]): Promise<'closed' | 'hung'> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const timer = setTimeout(() => {
      socket.destroy();
      resolve('hung');
    }, 10_000);
    socket.on('error', () => undefined);
    socket.on('data', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve('closed');
    });
    socket.on('connect', () => {
      for (const f of frames) if (!socket.destroyed) socket.write(f);
      socket.end();
    });
  });
}

describe('id server under protocol fuzz', () => {
  it('answers or closes every fuzzed connection and keeps serving a healthy client throughout', async () => {
    const server = await startIdServer({
      port: 0,
      stateDir: false,
      logger: silentLogger,
      machineId: 1013,
      maxBatch: 100,
      handshakeTimeoutMs: 2000,
    });
    const ids = await createIdClient({
      servers: [server.url],
      logger: silentLogger,
      maxAttempts: 1,
    });
    let healthy = 0;
    const healthyErrors: unknown[] = [];
    let fuzzing = true;
    const healthyLoop = (async () => {
      for (let i = 0; fuzzing && i < 1_000_000; i++) {
        try {
          await ids.genIds(10);
          healthy++;
        } catch (error) {
          healthyErrors.push(error);
        }
        if (i % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    })();

    const random = seeded(20250101);
    const outcomes: string[] = [];
    let sent = 0;
    const hello = HelloMessage.encode(1, { protocolVersion: PROTOCOL_VERSION, token: undefined });
    const plans = Array.from({ length: CONNECTIONS }, (_, n) => {
      const frames = Array.from({ length: FRAMES_PER_CONNECTION }, () => fuzzFrame(random));
      sent += frames.length;
      return n % 3 === 0 ? frames : [hello, ...frames];
    });
    for (let i = 0; i < plans.length; i += PARALLEL) {
      const batch = plans
        .slice(i, i + PARALLEL)
        .map((frames) => fuzzConnection(server.address.port, frames));
      outcomes.push(...(await Promise.all(batch)));
    }
    fuzzing = false;
    await healthyLoop;
    const afterFuzz = await ids.genIds(10);
    await ids.close();
    const connectionsLeft = server.connections;
    await server.close();

    expect(sent).toBeGreaterThanOrEqual(3000);
    expect(outcomes.filter((o) => o !== 'closed')).toEqual([]);
    expect(healthyErrors).toEqual([]);
    expect(healthy).toBeGreaterThan(0);
    expect(afterFuzz).toHaveLength(10);
    expect(connectionsLeft).toBeLessThanOrEqual(1);
  });
});
