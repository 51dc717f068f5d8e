import { randomUUID } from 'node:crypto';
import { Injectable, Module } from '@nestjs/common';
import { silentLogger } from '@vesta/core';
import { RedisAdmin, RedisMachineIdProvider } from '@vesta/redis';
import { startIdServer, type IdServerHandle } from '@vesta/server';
import { eventually, startRedisServer, type RedisServer } from '@vesta/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startNestApp, type NestApp } from './testing/startNestApp.js';
import { VestaModule } from './VestaModule.js';

const TWO_POW_53 = 2n ** 53n;

let redis: RedisServer;
let idServer: IdServerHandle;
/** Every app a test started, closed after it (a test that closes its own closes it again: a no-op). */
const apps: NestApp[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  idServer = await startIdServer({
    port: 0,
    machineId: 1001,
    stateDir: false,
    logger: silentLogger,
  });
});
afterEach(async () => {
  for (const { app } of apps.splice(0)) await app.close();
});
afterAll(async () => {
  await idServer?.close();
  await redis?.stop();
});

async function started(imports: Parameters<typeof startNestApp>[0]): Promise<NestApp> {
  const app = await startNestApp(imports);
  apps.push(app);
  return app;
}

/** A Redis lease of a fleet of its own (a new prefix), renewing fast so that a loss shows soon. */
function redisProvider(prefix: string): RedisMachineIdProvider {
  return new RedisMachineIdProvider({
    url: redis.url,
    prefix,
    // A Redis started for this file holds nothing from an earlier holder.
    eraWaitMs: 0,
    refreshIntervalMs: 100,
    fenceAfterMs: 400,
    logger: silentLogger,
  });
}

describe('VestaModule in a Nest application over HTTP', () => {
  it('gives a controller the embedded service, whose ids reach the client as decimal strings', async () => {
    const nest = await started([
      VestaModule.forRoot({ embedded: { machineId: 7, logger: silentLogger } }),
    ]);
    const one = await nest.get('/ids');
    expect(one.status).toBe(200);
    expect(one.text).toMatch(/^\{"id":"\d+"\}$/);
    const id = BigInt((one.json as { id: string }).id);
    expect(id).toBeGreaterThan(TWO_POW_53);
    expect(nest.ids.expId(id)).toMatchObject({ machine: 7, genMethod: 0 });

    const batch = await nest.get('/ids/batch?count=3');
    expect(batch.text).toMatch(/^\{"ids":\["\d+","\d+","\d+"\]\}$/);
    const ids = (batch.json as { ids: string[] }).ids.map(BigInt);
    expect(ids[0]).toBeGreaterThan(id);
    expect([...ids].sort((a, b) => (a < b ? -1 : 1))).toEqual(ids);
    expect(new Set(ids).size).toBe(3);
  });

  it('carries an id above 2^53 there and back exactly', async () => {
    const nest = await started([
      VestaModule.forRoot({ embedded: { machineId: 8, logger: silentLogger } }),
    ]);
    // Near the top of the 30-bit time field, every low bit set: bits a double would round off.
    const id = nest.ids.makeId({ time: 2 ** 30 - 3, seq: 0xfffff, machine: 8 });
    expect(id).toBeGreaterThan(2n ** 59n);
    expect(BigInt(Number(id))).not.toBe(id); // a JSON number could not carry it
    const echoed = await nest.get(`/ids/${id}`);
    expect(echoed.status).toBe(200);
    expect(echoed.text).toBe(`{"id":"${id}","machine":8}`);
  });

  it('takes its options from an injected configuration provider with forRootAsync', async () => {
    const CONFIG = Symbol('config');

    @Injectable()
    class IdConfig {
      readonly machineId = 11;
    }

    @Module({ providers: [{ provide: CONFIG, useClass: IdConfig }], exports: [CONFIG] })
    class ConfigModule {}

    const nest = await started([
      VestaModule.forRootAsync({
        imports: [ConfigModule],
        inject: [CONFIG],
        useFactory: async (config: IdConfig) => ({
          embedded: { machineId: config.machineId, logger: silentLogger },
        }),
      }),
    ]);
    const { json } = await nest.get('/ids');
    expect(nest.ids.expId((json as { id: string }).id).machine).toBe(11);
  });

  it('gives the central servers’ client with { client }, and closes it with the application', async () => {
    const nest = await started([
      VestaModule.forRoot({
        client: { servers: [`127.0.0.1:${idServer.address.port}`], logger: silentLogger },
      }),
    ]);
    const { json } = await nest.get('/ids');
    expect(nest.ids.expId((json as { id: string }).id)).toMatchObject({
      machine: 1001,
      genMethod: 1,
    });
    expect(nest.ids.health()).toEqual({ ok: true });
    await nest.app.close();
    expect(nest.ids.health()).toMatchObject({ ok: false, code: 'SERVICE_CLOSED' });
  });

  it('holds a coordinator lease for the application’s life and releases it at app.close()', async () => {
    const prefix = `nestjs-${randomUUID()}`;
    const admin = new RedisAdmin({ url: redis.url, prefix });
    const nest = await started([
      VestaModule.forRoot({
        embedded: { machineIdProvider: redisProvider(prefix), logger: silentLogger },
      }),
    ]);
    const { json } = await nest.get('/ids');
    const machine = nest.ids.expId((json as { id: string }).id).machine;
    expect(await admin.list()).toMatchObject([{ machineId: machine, alive: true }]);
    await nest.app.close();
    expect(await admin.list()).toMatchObject([{ machineId: machine, alive: false, owner: null }]);
  });
});

describe('VestaHealthIndicator on a terminus endpoint', () => {
  it('answers up while the lease is held, then down with MACHINE_ID_LEASE_LOST once fenced', async () => {
    const prefix = `nestjs-${randomUUID()}`;
    const nest = await started([
      VestaModule.forRoot({
        embedded: { machineIdProvider: redisProvider(prefix), logger: silentLogger },
      }),
    ]);
    const up = await nest.get('/health');
    expect(up).toMatchObject({
      status: 200,
      json: { status: 'ok', info: { vesta: { status: 'up' } } },
    });

    // An operator's forced release: the holder finds it gone at its next renewal and fences.
    await new RedisAdmin({ url: redis.url, prefix }).release(nest.ids.info().machine, {
      force: true,
    });
    expect(await eventually(async () => (await nest.get('/health')).status === 503)).toBe(true);
    const down = await nest.get('/health');
    expect(down.json).toMatchObject({
      status: 'error',
      error: { vesta: { status: 'down', code: 'MACHINE_ID_LEASE_LOST' } },
    });
    expect((await nest.get('/ids')).status).toBe(500);
  });

  it('answers down with SERVICE_CLOSED once the service is closed', async () => {
    const nest = await started([
      VestaModule.forRoot({ embedded: { machineId: 9, logger: silentLogger } }),
    ]);
    expect((await nest.get('/health')).status).toBe(200);
    await nest.ids.close();
    const down = await nest.get('/health');
    expect(down).toMatchObject({
      status: 503,
      json: { status: 'error', error: { vesta: { status: 'down', code: 'SERVICE_CLOSED' } } },
    });
  });
});
