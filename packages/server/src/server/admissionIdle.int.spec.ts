import { connect, type Socket } from 'node:net';
import { silentLogger } from '@vesta/core';
import { describe, expect, it } from 'vitest';
import { GenerateMessage } from '../protocol/GenerateMessage.js';
import { HelloMessage } from '../protocol/HelloMessage.js';
import { PROTOCOL_VERSION } from '../protocol/protocolConstants.js';
import { startIdServer } from './startIdServer.js';

const FLOODERS = 3;
const FRAMES = 400;
const MAX_BATCH = 10_000;

/** A connection that handshakes, pipelines GENERATE(maxBatch) frames and never reads. */
function nonReader(port: number): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.pause();
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      const frames = [
        HelloMessage.encode(1, { protocolVersion: PROTOCOL_VERSION, token: undefined }),
      ];
      for (let i = 0; i < FRAMES; i++) frames.push(GenerateMessage.encodeRequest(i + 2, MAX_BATCH));
      socket.write(Buffer.concat(frames));
      resolve(socket);
    });
  });
}

describe('the id server with connections that stopped reading and wait for admission', () => {
  it('cuts them at the idle timeout, so their unread answers give the byte budget back', async () => {
    // A byte budget far below one connection's unread answers: the non-readers end up queued
    // for admission with answers stuck in their sockets.
    const server = await startIdServer({
      port: 0,
      machineId: 1001,
      stateDir: false,
      logger: silentLogger,
      maxBatch: MAX_BATCH,
      maxBufferedBytes: 256 * 1024,
      idleTimeoutMs: 500,
    });
    const sockets: Socket[] = [];
    try {
      for (let i = 0; i < FLOODERS; i++) sockets.push(await nonReader(server.address.port));
      // Seen from the server: a paused client does not notice its socket was cut until it reads.
      const until = async (done: () => boolean): Promise<void> => {
        const deadline = performance.now() + 20_000;
        while (!done() && performance.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };
      let peak = 0;
      await until(() => (peak = Math.max(peak, server.connections)) === FLOODERS);
      expect(peak).toBe(FLOODERS);
      await until(() => server.connections === 0);
      expect(server.connections).toBe(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      await server.close();
    }
  });
});
