import { describe, expect, it } from 'vitest';
import type { IdServerHandle } from '../server/startIdServer.js';
import { overloadedModule } from '../testing/overloadedModule.js';
import { ProtocolConnection } from './ProtocolConnection.js';
import { rejection } from '@vesta/testkit';
import { useServerFixtures } from '../testing/useServerFixtures.js';

const fixtures = useServerFixtures();
const { client, cleanup } = fixtures;

/** A server whose id service answers OVERLOADED (retry after 250 ms), or a healthy one. */
function server(machineId: number, overloaded: boolean): Promise<IdServerHandle> {
  return fixtures.server(machineId, overloaded ? { modules: [overloadedModule(250)] } : {});
}

describe('an overloaded id server', () => {
  it('answers GENERATE with an OVERLOADED error frame carrying the retry-after, and keeps the connection', async () => {
    const s = await server(1016, true);
    const conn = await ProtocolConnection.connect(s.address);
    cleanup.push(() => conn.close());
    for (const call of [() => conn.generateOne(), () => conn.generate(10)]) {
      const error = await rejection(call());
      expect(error.code).toBe('OVERLOADED');
      expect(error.details).toMatchObject({ remote: true, retryAfterMs: 250 });
    }
    expect((await conn.ping(Buffer.from('still here'))).toString()).toBe('still here');
  });

  it('is skipped by the client for another server, without being marked down', async () => {
    const busy = await server(1017, true);
    const fine = await server(1018, false);
    const ids = await client({ servers: [busy.url, fine.url] });
    const downs: string[] = [];
    ids.on('serverDown', (e) => downs.push(e.server));
    const got = [
      ...(await Promise.all(Array.from({ length: 20 }, () => ids.genId()))),
      ...(await ids.genIds(50)),
    ];
    expect(new Set(got.map((id) => ids.expId(id).machine))).toEqual(new Set([1018]));
    expect(downs).toEqual([]);
    expect(ids.info().servers.map((e) => e.state)).toEqual(['up', 'up']);
  });

  it('fails the call with OVERLOADED and its retry-after when every server is overloaded, without falling back', async () => {
    const a = await server(1019, true);
    const b = await server(1020, true);
    const ids = await client({ servers: [a.url, b.url], fallback: { machineId: 9 } });
    let fellBack = false;
    ids.on('fallback', () => {
      fellBack = true;
    });
    const error = await rejection(ids.genId());
    expect(error.code).toBe('OVERLOADED');
    expect(error.details).toMatchObject({ retryAfterMs: 250, servers: 2 });
    expect(fellBack).toBe(false);
    expect(ids.info()).toMatchObject({ mode: 'servers' });
    expect(ids.info().servers.map((e) => e.state)).toEqual(['up', 'up']);
  });
});
