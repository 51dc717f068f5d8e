import { decodeUuid, formatUuid, silentLogger } from '@vesta/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRestServer, type RestServer } from './index.js';

/** RFC 9562: 8-4-4-4-12 lower-case hex, version 7, variant 0b10. */
const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let server: RestServer;
beforeAll(async () => {
  server = await startRestServer({
    logger: silentLogger,
    machineId: 1001,
    port: 0,
    stateDir: false,
    // Milliseconds: a UUID's time is its unit's start.
    type: 'min-granularity',
  });
});
afterAll(async () => {
  await server?.close();
});

async function get(path: string, method = 'GET'): Promise<{ status: number; body: string }> {
  const answer = await fetch(`${server.url}${path}`, { method });
  return { status: answer.status, body: await answer.text() };
}

function errorCode(body: string): string {
  return (JSON.parse(body) as { error: { code: string } }).error.code;
}

describe('UUIDv7 over REST', () => {
  it('issues RFC 9562 UUIDs from /genuuid and /genuuids: version 7, variant 10, the time of the call, the server machine id and genMethod 2, strictly increasing', async () => {
    const issued: string[] = [];
    for (let round = 0; round < 20; round++) {
      const before = Date.now();
      const one = await get('/genuuid');
      const batch = await get('/genuuids?count=500');
      const after = Date.now();
      expect([one.status, batch.status]).toEqual([200, 200]);
      const uuids = [
        (JSON.parse(one.body) as { id: string }).id,
        ...(JSON.parse(batch.body) as { ids: string[] }).ids,
      ];
      expect(uuids).toHaveLength(501);
      const bad = uuids.filter((uuid) => {
        const f = decodeUuid(uuid);
        return !(
          V7.test(uuid) &&
          f.vesta &&
          f.machine === 1001 &&
          f.genMethod === 2 &&
          f.type === 1 &&
          (f.unixMs ?? -1) >= before &&
          (f.unixMs ?? Infinity) <= after
        );
      });
      expect(bad).toEqual([]);
      issued.push(...uuids);
    }
    expect(issued.every((uuid, i) => i === 0 || uuid > (issued[i - 1] as string))).toBe(true);
  });

  it('writes UUIDs in the form `format` names; each reads back as the canonical one', async () => {
    for (const form of ['hex', 'base32', 'canonical'] as const) {
      const { ids } = JSON.parse((await get(`/genuuids?count=3&format=${form}`)).body) as {
        ids: string[];
      };
      for (const text of ids) {
        const canonical = formatUuid(text);
        expect(canonical).toMatch(V7);
        expect(formatUuid(canonical, form)).toBe(text);
      }
      const { id } = JSON.parse((await get(`/genuuid?format=${form}`)).body) as { id: string };
      expect(formatUuid(formatUuid(id), form)).toBe(id);
    }
  });

  it('answers a HEAD with no body, and bad queries with coded 400s before issuing', async () => {
    const head = await get('/genuuids?count=5', 'HEAD');
    expect(head).toEqual({ status: 200, body: '' });
    for (const path of [
      '/genuuid?format=decimal',
      '/genuuids?count=0',
      '/genuuids?count=100001',
      '/genuuids',
      '/genuuid?count=2',
    ]) {
      const answer = await get(path);
      expect({ path, status: answer.status }).toEqual({ path, status: 400 });
      expect(errorCode(answer.body)).toBe('INVALID_ARGUMENT');
    }
  });
});

describe('time bounds over REST', () => {
  it("answers /bounds with the id ranges and UUID bounds that hold exactly the window's ids", async () => {
    const before = Date.now();
    const ids = (JSON.parse((await get('/genids?count=300')).body) as { ids: string[] }).ids;
    const uuids = (JSON.parse((await get('/genuuids?count=300')).body) as { ids: string[] }).ids;
    const after = Date.now();
    const answer = await get(`/bounds?from=${before}&to=${new Date(after).toISOString()}`);
    expect(answer.status).toBe(200);
    const bounds = JSON.parse(answer.body) as {
      fromMs: number;
      toMs: number;
      ids: { min: string; max: string; genMethod: number; type: number; version: number }[];
      uuids: { min: string; max: string };
    };
    expect([bounds.fromMs, bounds.toMs]).toEqual([before, after]);
    // Vesta's layout: one range per genMethod, the server's type and version.
    expect(bounds.ids.map((r) => [r.genMethod, r.type, r.version])).toEqual([
      [0, 1, 0],
      [1, 1, 0],
      [2, 1, 0],
      [3, 1, 0],
    ]);
    const rest = bounds.ids[2] as { min: string; max: string };
    expect(
      ids.every((id) => BigInt(id) >= BigInt(rest.min) && BigInt(id) <= BigInt(rest.max)),
    ).toBe(true);
    expect(uuids.every((u) => u >= bounds.uuids.min && u <= bounds.uuids.max)).toBe(true);

    // A window that ends before the ids were issued holds none of them.
    const earlier = JSON.parse(
      (await get(`/bounds?from=${before - 60_000}&to=${before - 1}&genMethod=2`)).body,
    ) as typeof bounds;
    expect(earlier.ids).toHaveLength(1);
    expect(ids.some((id) => BigInt(id) <= BigInt((earlier.ids[0] as { max: string }).max))).toBe(
      false,
    );
    expect(uuids.some((u) => u <= earlier.uuids.max)).toBe(false);

    for (const path of ['/bounds?from=yesterday&to=1', '/bounds?from=5&to=4', '/bounds?from=1']) {
      const bad = await get(path);
      expect({ path, status: bad.status }).toEqual({ path, status: 400 });
      expect(errorCode(bad.body)).toBe('INVALID_ARGUMENT');
    }
  });
});

describe('decoding UUIDs over REST', () => {
  it('answers /expuuid with the issuer of its own UUIDs in any form, the time alone of another v7, the version of a v4', async () => {
    const { id } = JSON.parse((await get('/genuuid?format=base32')).body) as { id: string };
    const mine = await get(`/expuuid?uuid=${id}`);
    expect(mine.status).toBe(200);
    expect(JSON.parse(mine.body)).toEqual(decodeUuid(id));
    expect(JSON.parse(mine.body)).toMatchObject({
      version: 7,
      vesta: true,
      machine: 1001,
      genMethod: 2,
      type: 1,
    });
    const v4 = crypto.randomUUID();
    expect(JSON.parse((await get(`/expuuid?uuid=${v4}`)).body)).toEqual({
      uuid: v4,
      version: 4,
      rfc9562: true,
      vesta: false,
    });
    const bad = await get('/expuuid?uuid=not-a-uuid');
    expect(bad.status).toBe(400);
    expect(errorCode(bad.body)).toBe('INVALID_ARGUMENT');
  });
});
