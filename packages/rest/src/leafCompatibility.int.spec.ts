import { request } from 'node:http';
import { issuableInstant, ORIGINAL_ID_FORMULAS, presetServerOptions } from '@vesta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { startRestServer, type RestServer } from './index.js';

type Preset = keyof typeof ORIGINAL_ID_FORMULAS;

const servers: RestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function serve(preset: Preset): Promise<RestServer> {
  const server = await startRestServer(presetServerOptions(preset));
  servers.push(server);
  return server;
}

function get(
  server: RestServer,
  path: string,
): Promise<{ status: number; type: string; body: string }> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () =>
        done({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }),
      );
    });
    req.on('error', fail);
    req.end();
  });
}

describe('the REST server with a layout preset', () => {
  it.each(Object.keys(ORIGINAL_ID_FORMULAS) as Preset[])(
    'issues %s ids bit for bit as the original formula does',
    async (preset) => {
      const server = await serve(preset);
      const machine = presetServerOptions(preset).machineId;
      const original = ORIGINAL_ID_FORMULAS[preset];
      const at = issuableInstant(preset);
      expect(JSON.parse((await get(server, '/genid')).body)).toEqual({
        id: String(original(at, machine, 0)),
      });
      expect(JSON.parse((await get(server, '/genids?count=2')).body)).toEqual({
        ids: [String(original(at, machine, 1)), String(original(at, machine, 2))],
      });
      expect(JSON.parse((await get(server, '/info')).body)).toMatchObject({ preset, machine });
    },
  );
});

describe("Leaf's REST paths (vesta rest --layout leaf)", () => {
  it('answers /api/snowflake/get/{key} with the id alone as plain text, as Leaf does', async () => {
    const server = await serve('leaf');
    const at = issuableInstant('leaf');
    const first = await get(server, '/api/snowflake/get/leaf-segment-test');
    expect(first).toEqual({
      status: 200,
      type: 'text/plain; charset=utf-8',
      body: String(ORIGINAL_ID_FORMULAS.leaf(at, 922, 0)),
    });
    const second = await get(server, '/api/snowflake/get/another.key_2');
    expect(second.body).toBe(String(ORIGINAL_ID_FORMULAS.leaf(at, 922, 1)));
  });

  it('decodes an id at /api/snowflake/decodeSnowflakeId as Leaf does', async () => {
    const server = await serve('leaf');
    // Leaf: timestamp = (id >> 22) + 1288834974657, workerId = (id >> 12) & 1023, sequence = id & 4095.
    const id = (1234567890123n << 22n) | (923n << 12n) | 77n;
    const answer = await get(server, `/api/snowflake/decodeSnowflakeId?snowflakeId=${id}`);
    const ms = 1234567890123 + 1288834974657;
    const iso = new Date(ms).toISOString();
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({
      timestamp: `${ms}(${iso.slice(0, 10)} ${iso.slice(11, 23)})`,
      workerId: '923',
      sequenceId: '77',
    });
  });

  it.each([
    ['a key with a space', '/api/snowflake/get/a%20b'],
    ['an empty key', '/api/snowflake/get/'],
    ['an id that is no number', '/api/snowflake/decodeSnowflakeId?snowflakeId=12ab'],
    ['an id with its sign bit set', `/api/snowflake/decodeSnowflakeId?snowflakeId=${1n << 63n}`],
  ])('refuses %s with a coded 400 or 404', async (_name, path) => {
    const server = await serve('leaf');
    const answer = await get(server, path);
    expect([400, 404]).toContain(answer.status);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: expect.any(String) } });
  });
});
