import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { RedisSegmentStore } from './RedisSegmentStore.js';

/** A port nothing listens on (bound, then closed), where a Redis is down. */
async function downPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('RedisSegmentStore while its Redis is down', () => {
  it('leaves no client reconnecting once closed, however many requests failed', async () => {
    const port = await downPort();
    const store = new RedisSegmentStore({ url: `redis://127.0.0.1:${port}` });
    for (let i = 0; i < 10; i++) {
      await expect(store.keys()).rejects.toMatchObject({ code: 'COORDINATOR_UNAVAILABLE' });
    }
    await store.close();

    // Redis comes back on its port: a closed store must not connect to it.
    let connections = 0;
    let firstConnection!: () => void;
    const connected = new Promise<void>((resolve) => (firstConnection = resolve));
    const redis = net.createServer((socket) => {
      connections++;
      socket.destroy();
      firstConnection();
    });
    await new Promise<void>((resolve) => redis.listen(port, '127.0.0.1', resolve));
    try {
      // Its retry strategy reconnects within 500 ms: 3 s leaves six turns to any client left.
      let bound: NodeJS.Timeout | undefined;
      await Promise.race([
        connected,
        new Promise<void>((resolve) => (bound = setTimeout(resolve, 3000))),
      ]);
      clearTimeout(bound);
      expect(connections).toBe(0);
    } finally {
      await new Promise<void>((resolve) => redis.close(() => resolve()));
    }
  });
});
