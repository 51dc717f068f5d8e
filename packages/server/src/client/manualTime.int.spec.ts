import { once } from 'node:events';
import { createServer } from 'node:net';
import { silentLogger } from '@vesta/core';
import { createVestaMetrics } from '@vesta/metrics';
import { ManualTimeSource } from '@vesta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { startIdServer, type IdServerHandle } from '../server/startIdServer.js';
import { createIdClient, type IdClient } from './IdClient.js';

/** A port nothing listens on (taken from the OS, then let go). */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

let client: IdClient | undefined;
let server: IdServerHandle | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

describe('the id client on manual time', () => {
  it('probes a down server back only once its backoff has passed, without sleeping', async () => {
    const port = await freePort();
    const time = new ManualTimeSource();
    client = await createIdClient({
      servers: [`127.0.0.1:${port}`],
      type: 'max-peak',
      epoch: '2025-01-01',
      probeIntervalMs: 1000,
      time,
      logger: silentLogger,
    });
    expect(client.info().servers[0]?.state).toBe('down');
    server = await startIdServer({ port, machineId: 1001, stateDir: false, logger: silentLogger });
    // The first backoff is 1000 ms +-25%: nothing is tried before 750 ms of (manual) time.
    await time.advance(749);
    expect(client.info().servers[0]?.state).toBe('down');
    const up = once(client, 'serverUp');
    expect(await time.runNext()).toBe(true);
    await up;
    expect(time.monotonic()).toBeGreaterThanOrEqual(750);
    expect(time.monotonic()).toBeLessThanOrEqual(1250);
    expect(client.info().servers[0]).toMatchObject({ state: 'up', machine: 1001 });
    expect(typeof (await client.genId())).toBe('bigint');
  });

  it('pings a connection once it has been idle for keepAliveMs', async () => {
    const metrics = createVestaMetrics({ collectDefaults: false });
    server = await startIdServer({
      port: 0,
      machineId: 1002,
      stateDir: false,
      logger: silentLogger,
      metrics,
    });
    const pings = async (): Promise<number> =>
      (await metrics.requests.get()).values
        .filter((v) => v.labels['route'] === 'ping')
        .reduce((sum, v) => sum + v.value, 0);
    const time = new ManualTimeSource();
    client = await createIdClient({
      servers: [`127.0.0.1:${server.address.port}`],
      keepAliveMs: 10_000,
      time,
      logger: silentLogger,
    });
    await client.genId();
    // The keep-alive looks every 5 s; a connection idle under 10 s is left alone.
    await time.advance(9_000);
    expect(await pings()).toBe(0);
    await time.advance(6_000);
    await expect.poll(pings).toBe(1);
  });
});
