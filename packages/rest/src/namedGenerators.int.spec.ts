import { silentLogger } from '@vesta/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRestServer, type RestServer } from './index.js';

let server: RestServer;

async function get(path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${server.url}${path}`);
  return { status: res.status, body: await res.text() };
}

/** The ids of a /genid or /genids answer, read as text so no id passes through a number. */
function idsOf(body: string): bigint[] {
  return [...body.matchAll(/"(\d+)"/g)].map((m) => BigInt(m[1] as string));
}

beforeAll(async () => {
  server = await startRestServer({
    machineId: 1000,
    port: 0,
    stateDir: false,
    logger: silentLogger,
    generators: {
      names: { orders: {}, users: {}, clicks: { type: 'min-granularity', machineId: 1001 } },
    },
  });
});

afterAll(async () => {
  await server.close();
});

describe('the REST server with named generators', () => {
  it('issues ids under each name, unique across all names, from the server generator or the name own', async () => {
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        get(
          [
            '/genid?key=orders',
            '/genids?key=users&count=50',
            '/genid',
            '/genids?key=clicks&count=20',
          ][i % 4] as string,
        ),
      ),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const ids = answers.flatMap((a) => idsOf(a.body));
    expect(ids).toHaveLength(15 * (1 + 50 + 1 + 20));
    expect(new Set(ids).size).toBe(ids.length);
    const clicks = idsOf((await get('/genid?key=clicks')).body)[0] as bigint;
    const decoded = JSON.parse((await get(`/expid?id=${clicks}`)).body) as Record<string, unknown>;
    expect(decoded).toMatchObject({ machine: 1001, type: 1, genMethod: 2 });
  });

  it('answers 404 UNKNOWN_GENERATOR for a name not configured and 400 for a malformed one, issuing nothing', async () => {
    const unknown = await get('/genid?key=payments');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toMatchObject({ error: { code: 'UNKNOWN_GENERATOR' } });
    for (const bad of ['', '..', 'a%20b', 'x'.repeat(65), '%C3%B6']) {
      const answer = await get(`/genids?count=2&key=${bad}`);
      expect(answer.status, bad).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });
    }
  });

  it('lists the names with their machine ids and counts, and exports the counts as metrics', async () => {
    const before = JSON.parse((await get('/generators')).body) as {
      generators: { name: string; issued: number; machine: number; shared: boolean }[];
    };
    const orders = before.generators.find((g) => g.name === 'orders');
    expect(orders).toMatchObject({ machine: 1000, shared: true });
    expect(before.generators.find((g) => g.name === 'clicks')).toMatchObject({
      machine: 1001,
      shared: false,
    });
    await get('/genids?key=orders&count=7');
    const after = JSON.parse((await get('/generators')).body) as typeof before;
    expect(after.generators.find((g) => g.name === 'orders')?.issued).toBe(
      (orders?.issued ?? 0) + 7,
    );
    const metrics = (await get('/metrics')).body;
    expect(metrics).toMatch(
      new RegExp(
        `vesta_generator_ids_issued_total\\{generator="orders"\\} ${(orders?.issued ?? 0) + 7}\\b`,
      ),
    );
  });

  it("issues Leaf's path from the named generator of its key, and from the server's own for any other key", async () => {
    const clicks = await get('/api/snowflake/get/clicks');
    expect(clicks.status).toBe(200);
    const other = await get('/api/snowflake/get/leaf-segment-test');
    expect(other.status).toBe(200);
    const decode = async (id: string): Promise<Record<string, unknown>> =>
      JSON.parse((await get(`/expid?id=${id}`)).body) as Record<string, unknown>;
    expect(await decode(clicks.body)).toMatchObject({ machine: 1001, type: 1 });
    expect(await decode(other.body)).toMatchObject({ machine: 1000, type: 0 });
    expect((await get('/api/snowflake/get/bad%20key')).status).toBe(400);
  });

  it('refuses at start a name whose own shape could collide with the server generator', async () => {
    await expect(
      startRestServer({
        machineId: 1002,
        port: 0,
        stateDir: false,
        logger: silentLogger,
        generators: { names: { same: { machineId: 1002, epoch: '2024-01-01' } } },
      }),
    ).rejects.toMatchObject({ code: expect.stringMatching(/INVALID_OPTIONS|MACHINE_ID_IN_USE/) });
  });
});
