import type { AddressInfo } from 'node:net';
import { silentLogger, type IdService } from '@vesta/core';
import { createRestIdService } from '@vesta/rest';
import { createSegmentService, MemorySegmentStore } from '@vesta/segment';
import { codeOfAsync } from '@vesta/testkit';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { vestaFastify, type VestaFastifyOptions } from './index.js';

const apps: FastifyInstance[] = [];
const services: IdService[] = [];

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  await Promise.all(services.splice(0).map((service) => service.close()));
});

/** A fastify app with the plugin registered, listening on 127.0.0.1 and a port the system picks. */
async function started(
  options: VestaFastifyOptions,
): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify();
  apps.push(app);
  await app.register(vestaFastify, options);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

async function service(machineId: number): Promise<IdService> {
  const created = await createRestIdService({ machineId, logger: silentLogger });
  services.push(created);
  return created;
}

describe('vestaFastify', () => {
  it('closes the service it created on app.close(), releasing its machine id', async () => {
    const { app, url } = await started({
      serviceOptions: { machineId: 1010, logger: silentLogger },
    });
    expect((await fetch(`${url}/genid`)).status).toBe(200);
    // While the app runs, the plugin's service holds machine id 1010 in this host.
    expect(
      await codeOfAsync(() => createRestIdService({ machineId: 1010, logger: silentLogger })),
    ).toBe('MACHINE_ID_IN_USE');
    const ids = app.vesta;
    expect(ids.health()).toEqual({ ok: true });
    await app.close();
    expect(ids.health()).toMatchObject({ ok: false, code: 'SERVICE_CLOSED' });
    // Released: a new service takes the machine id at once.
    await service(1010);
  });

  it('leaves a service the app passed open after app.close()', async () => {
    const own = await service(1011);
    const { app, url } = await started({ service: own });
    expect(app.vesta).toBe(own);
    expect((await fetch(`${url}/genid`)).status).toBe(200);
    await app.close();
    expect(own.health()).toEqual({ ok: true });
    expect(typeof (await own.genId())).toBe('bigint');
  });

  it('decorates the app with the service, for its own routes', async () => {
    const own = await service(1012);
    const app = Fastify();
    apps.push(app);
    await app.register(vestaFastify, { service: own, prefix: '/ids' });
    app.get('/orders/new', async () => ({ orderId: String(await app.vesta.genId()) }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const { orderId } = (await (await fetch(`${url}/orders/new`)).json()) as { orderId: string };
    expect(own.expId(BigInt(orderId)).machine).toBe(1012);
    expect((await fetch(`${url}/ids/genid`)).status).toBe(200);
    // Not at the root: the routes are below the prefix only.
    expect((await fetch(`${url}/genid`)).status).toBe(404);
  });

  it('serves below a prefix given to register, as fastify plugins take it', async () => {
    const own = await service(1013);
    const app = Fastify();
    apps.push(app);
    await app.register(vestaFastify, { service: own, prefix: '/v1/ids' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const genid = await fetch(`${url}/v1/ids/genid`);
    expect(await genid.json()).toEqual({ id: expect.stringMatching(/^[0-9]+$/) as unknown });
    const missing = await fetch(`${url}/v1/ids/nope`);
    expect(await missing.json()).toEqual({
      error: { code: 'NOT_FOUND', message: 'no route "/nope"; GET /openapi.json lists them' },
    });
    // The id page's own path is '<prefix>/': '<prefix>' is sent there, its query kept.
    const bare = await fetch(`${url}/v1/ids?x=1`, { redirect: 'manual' });
    expect(bare.status).toBe(308);
    expect(bare.headers.get('location')).toBe('./ids/?x=1');
    const page = await fetch(`${url}/v1/ids/`);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('serves segment keys below a prefix that itself reads like a route (/segment)', async () => {
    const store = new MemorySegmentStore();
    await store.createKey('order', { step: 10 });
    const segments = createSegmentService({ store });
    const { url } = await started({ service: await service(1012), prefix: '/segment', segments });
    const first = await fetch(`${url}/segment/segment/order`);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ id: '0' });
    const leaf = await fetch(`${url}/segment/api/segment/get/order`);
    expect(await leaf.text()).toBe('1');
    await segments.close();
  });

  it('sends the headers an onRequest hook set with the answer', async () => {
    const app = Fastify();
    apps.push(app);
    app.addHook('onRequest', async (_request, reply) => {
      reply.header('access-control-allow-origin', '*');
    });
    await app.register(vestaFastify, { service: await service(1014) });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    for (const path of ['/genid', '/genids?count=0']) {
      const answer = await fetch(`${url}${path}`);
      expect(answer.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(answer.headers.get('content-type'), path).toBe('application/json; charset=utf-8');
    }
  });

  it.each([
    ['neither service nor serviceOptions', {}],
    ['a prefix ending in /', { prefix: '/ids/' }],
    ['a prefix without its leading /', { prefix: 'ids' }],
    ['an unknown option', { colour: 'blue' }],
    ['a maxBatch out of range', { maxBatch: 0 }],
  ])('refuses %s with INVALID_OPTIONS when it registers', async (_what, options) => {
    const own = await service(1015);
    const app = Fastify();
    apps.push(app);
    const given = { service: own, ...options } as VestaFastifyOptions;
    if (_what.startsWith('neither')) delete (given as { service?: IdService }).service;
    await expect(codeOfAsync(() => app.register(vestaFastify, given).ready())).resolves.toBe(
      'INVALID_OPTIONS',
    );
  });

  it('refuses both service and serviceOptions with INVALID_OPTIONS', async () => {
    const app = Fastify();
    apps.push(app);
    const both = {
      service: await service(1016),
      serviceOptions: { machineId: 1017 },
    } as unknown as VestaFastifyOptions;
    await expect(codeOfAsync(() => app.register(vestaFastify, both).ready())).resolves.toBe(
      'INVALID_OPTIONS',
    );
  });

  it('closes the service it created when the REST options are refused', async () => {
    const app = Fastify();
    apps.push(app);
    const refused = {
      serviceOptions: { machineId: 1018, logger: silentLogger },
      maxBatch: 0,
    } as VestaFastifyOptions;
    await expect(codeOfAsync(() => app.register(vestaFastify, refused).ready())).resolves.toBe(
      'INVALID_OPTIONS',
    );
    // Closed, so machine id 1018 is free again in this host.
    await service(1018);
  });
});

describe("vestaFastify's routes and the app's hooks", () => {
  it("leave an error of the app's own hook to the app's error handler", async () => {
    const app = Fastify();
    apps.push(app);
    app.addHook('onRequest', async (request) => {
      if (request.headers['x-slow-down'] !== undefined) {
        throw Object.assign(new Error('slow down'), { statusCode: 429 });
      }
    });
    await app.register(vestaFastify, { service: await service(1019), prefix: '/ids' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const limited = await fetch(`${url}/ids/genid`, { headers: { 'x-slow-down': '1' } });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({
      statusCode: 429,
      error: 'Too Many Requests',
      message: 'slow down',
    });
    expect((await fetch(`${url}/ids/genid`)).status).toBe(200);
  });
});
