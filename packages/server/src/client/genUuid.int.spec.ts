import { randomUUID } from 'node:crypto';
import { decodeUuid, silentLogger } from '@vesta/core';
import { RedisMachineIdProvider } from '@vesta/redis';
import {
  freePort,
  presetServerOptions,
  rejection,
  startRedisServer,
  type RedisServer,
} from '@vesta/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIdServer } from '../server/startIdServer.js';
import { useServerFixtures } from '../testing/useServerFixtures.js';
import { ProtocolConnection } from './ProtocolConnection.js';

const { server, client, cleanup } = useServerFixtures();

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

/** RFC 9562: 8-4-4-4-12 lower-case hex, version 7, variant 0b10. */
const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** An id server leasing its machine id from the test's Redis under `prefix`. */
async function leasedServer(prefix: string) {
  const s = await startIdServer({
    port: 0,
    stateDir: false,
    logger: silentLogger,
    machineIdProvider: new RedisMachineIdProvider({
      url: redis.url,
      prefix,
      // A Redis started for these tests holds nothing from an earlier holder.
      eraWaitMs: 0,
      logger: silentLogger,
    }),
  });
  cleanup.push(() => s.close());
  return s;
}

describe('UUIDv7 from the central server (GENERATE_UUID)', () => {
  it('two servers on one coordinator: RFC 9562 UUIDs, each its own machine id, strictly increasing per server, none repeated', async () => {
    const prefix = `uuid-${randomUUID()}`;
    const a = await leasedServer(prefix);
    const b = await leasedServer(prefix);
    const machines = [a.service.info().machine, b.service.info().machine];
    expect(machines[0]).not.toBe(machines[1]);
    const ids = await client({ servers: [a.url, b.url] });
    const seen = new Set<string>();
    const last = new Map<number, string>();
    for (let round = 0; round < 40; round++) {
      const before = Date.now();
      const batch = round % 4 === 0 ? [await ids.genUuid()] : await ids.genUuids(2_000);
      const after = Date.now();
      const { machine = -1 } = decodeUuid(batch[0] as string);
      // One batch comes from one server; plain checks, each UUID (expect per UUID is slow).
      const bad = batch.filter((uuid) => {
        const f = decodeUuid(uuid);
        const previous = last.get(machine) ?? '';
        last.set(machine, uuid);
        seen.add(uuid);
        return !(
          V7.test(uuid) &&
          f.vesta &&
          f.machine === machine &&
          f.genMethod === 1 &&
          // Type 0 (seconds): the UUID's ms are the clock's within its second, taken in the call.
          (f.unixMs ?? -1) >= before - 1_000 &&
          (f.unixMs ?? Infinity) <= after &&
          uuid > previous
        );
      });
      expect(bad).toEqual([]);
    }
    expect(new Set(last.keys())).toEqual(new Set(machines));
    expect(seen.size).toBe(30 * 2_000 + 10);
  });

  it('issues UUIDs from the fallback (genMethod 0, its machine id) while no server answers', async () => {
    const ids = await client({
      servers: [`127.0.0.1:${await freePort()}`],
      fallback: { machineId: 7 },
    });
    const uuids = await ids.genUuids(100);
    expect(new Set(uuids).size).toBe(100);
    expect(decodeUuid(uuids[0] as string)).toMatchObject({ machine: 7, genMethod: 0 });
    expect(decodeUuid(await ids.genUuid())).toMatchObject({ machine: 7, genMethod: 0 });
  });

  it('answers a count out of range and a layout without room for UUIDs with coded errors, the connection kept', async () => {
    const s = await server(1000);
    const conn = await ProtocolConnection.connect(s.address);
    cleanup.push(() => conn.close());
    expect((await rejection(conn.generateUuids(0))).code).toBe('INVALID_ARGUMENT');
    expect((await rejection(conn.generateUuids(2 ** 32 - 1))).code).toBe('INVALID_ARGUMENT');
    expect(await conn.generateUuids(3)).toHaveLength(3);

    // uid-generator's worker id is 22 bits: no room in a UUID's 16.
    const uid = await startIdServer(presetServerOptions('uid-generator'));
    cleanup.push(() => uid.close());
    const uidConn = await ProtocolConnection.connect(uid.address);
    cleanup.push(() => uidConn.close());
    expect((await rejection(uidConn.generateUuids(1))).code).toBe('INVALID_OPTIONS');
    expect(await uidConn.generate(2)).toHaveLength(2);
  });
});
