import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IdService } from '@vesta/core';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRestApp, createRestIdService, createRestMiddleware } from './index.js';

const TOKEN = 'middleware-test-token';

let service: IdService;
const servers: Server[] = [];

beforeAll(async () => {
  service = await createRestIdService({ machineId: 1008 });
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await service.close();
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The express app of a user: its own routes, the REST API mounted under /ids. */
function userApp(mountFastPath: boolean): express.Express {
  const options = { service, authToken: TOKEN };
  const app = express();
  if (mountFastPath) app.use('/ids', createRestMiddleware(options));
  app.use('/ids', createRestApp(options));
  app.get('/mine', (_req, res) => void res.send('own route'));
  return app;
}

const auth = { authorization: `Bearer ${TOKEN}` };

describe('createRestMiddleware', () => {
  it.each([
    ['mounted in express ahead of createRestApp', true],
    ['(createRestApp alone, for comparison)', false],
  ])('answers the API %s the same way', async (_what, fast) => {
    const url = await listen(createServer(userApp(fast)));
    const genid = await fetch(`${url}/ids/genid`, { headers: auth });
    expect(genid.status).toBe(200);
    expect(await genid.json()).toEqual({ id: expect.stringMatching(/^[0-9]+$/) as unknown });
    const ids = (await (await fetch(`${url}/ids/genids?count=3`, { headers: auth })).json()) as {
      ids: string[];
    };
    expect(ids.ids).toHaveLength(3);
    // Auth and query checks are the route handlers' own, fast path or not.
    expect((await fetch(`${url}/ids/genid`)).status).toBe(401);
    expect((await fetch(`${url}/ids/genids?count=0`, { headers: auth })).status).toBe(400);
    // What the fast path passes on: the API's 404 and 405, and the user's own routes.
    const missing = await fetch(`${url}/ids/nope`, { headers: auth });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    expect((await fetch(`${url}/ids/genid`, { method: 'POST', headers: auth })).status).toBe(405);
    expect(await (await fetch(`${url}/mine`)).text()).toBe('own route');
  });

  it('serves the routes ahead of express on a plain node:http server, passing every other request on', async () => {
    const fast = createRestMiddleware({ service });
    const app = express();
    app.get('/mine', (_req, res) => void res.send('own route'));
    const url = await listen(createServer((req, res) => fast(req, res, () => app(req, res))));
    const genid = await fetch(`${url}/genid`);
    expect(genid.status).toBe(200);
    expect(genid.headers.get('x-powered-by')).toBeNull();
    expect(((await genid.json()) as { id: string }).id).toMatch(/^[0-9]+$/);
    expect(await (await fetch(`${url}/mine`)).text()).toBe('own route');
    // Not an exact route of the API (another method, a trailing slash): express answers.
    expect((await fetch(`${url}/genid/`)).headers.get('x-powered-by')).toBe('Express');
    expect((await fetch(`${url}/genid`, { method: 'POST' })).headers.get('x-powered-by')).toBe(
      'Express',
    );
  });
});
